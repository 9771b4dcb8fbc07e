#!/usr/bin/env node
// Plain JavaScript that any Node parses: the runtime check must run before the bundle loads.
// CommonJS (bin/package.json): Node starts a CommonJS main without its ESM loader, a measurable part of a start.

// Keep equal to package.json engines.node (test/cli/runtime.test.ts checks it).
const FLOOR = [22, 22, 3];
const have = process.versions.node.split(".").map(Number);
const older = FLOOR.findIndex((n, i) => have[i] !== n);
if (older !== -1 && have[older] < FLOOR[older]) {
  process.stderr.write(
    `openclaw-sessions: needs Node.js ${FLOOR.join(".")} or newer (the oldest OpenClaw supports); this is ${process.version}. Upgrade Node.js and run it again.\n`,
  );
  process.exit(3);
}

// Builtins as the bundle takes them (scripts/build.mjs).
const fs = process.getBuiltinModule("node:fs");

// `--version` answers before anything else loads: it is what scripts and shells call most.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(`${__dirname}/../package.json`, "utf8")).version}\n`);
  process.exit(0);
}

// The bundle (scripts/build.mjs) is one file whose value is a function taking the CommonJS
// arguments. It is compiled here with node:vm rather than loaded as a module: a code cache that vm
// makes after the run holds every function the run compiled, where Node's own compile cache (made
// when a module is compiled) holds only its top level, so each run compiled again all it called.
const path = process.getBuiltinModule("node:path");
const vm = process.getBuiltinModule("node:vm");

/** The buffer readWhole reads into (grown when a file does not fit). */
let wholeBuffer = Buffer.alloc(0);
/**
 * A code cache's first byte: made by a cold run (one that derived a whole answer and kept it: only
 * what was compiled before it ran), or by any other (all it compiled).
 */
const COLD = 0x43;
const WARM = 0x57;

// A Tab's keys, while the proof the last Tab left holds (src/cli/tab-keys.ts), and the listing of
// an `ls --json` while its proof holds (src/cli/kept-ls.ts): the few KB of dist/tab.js, none of
// the CLI. Anything else, or any failure, and the CLI answers as ever.
const kept =
  args[0] === "__complete" && args[1] === "keys"
    ? (tab) => tab.tabKeys(args.slice(1), process.env, process.cwd())
    : args[0] === "ls" && args.includes("--json")
      ? (tab) => tab.keptLs(args, process.env, process.cwd())
      : null;
if (!(kept && answeredFromTab(kept))) runCli();

/** The command, by the CLI's bundle. */
function runCli() {
  // A command with a bundle of its own (dist/commands/<name>.js, scripts/build.mjs) runs that one.
  const command = /^[a-z_][a-z_-]{0,23}$/.test(args[0] ?? "") ? args[0] : "-";
  let bundlePath = path.join(__dirname, "..", "dist", "commands", `${command}.js`);
  let source;
  try {
    // ASCII only (scripts/build.mjs): latin1 is the fast way to read it.
    source = readWhole(bundlePath).toString("latin1");
  } catch {
    bundlePath = path.join(__dirname, "..", "dist", "cli.js");
  }
  try {
    source ??= readWhole(bundlePath).toString("latin1");
  } catch {
    // A clone that was never built (the package users install ships dist/): say how, not a stack trace.
    process.stderr.write(
      `openclaw-sessions: ${bundlePath} is missing: this is an unbuilt source checkout; run \`npm run build\` in it first\n`,
    );
    process.exit(3);
  }
  const cache = codeCache(source, command);
  let cachedData;
  let made = null;
  if (cache)
    try {
      const bytes = readWhole(cache.file);
      // Its first byte says which run made it (saveCodeCache); anything else is no cache of this bin's.
      if (bytes[0] === WARM || bytes[0] === COLD) {
        made = bytes[0];
        cachedData = bytes.subarray(1);
      }
    } catch {
      // none yet: this run makes it
    }
  const script = new vm.Script(source, { filename: bundlePath, cachedData });
  const usable = cachedData !== undefined && !script.cachedDataRejected;
  // What a cold run leaves: the code compiled before anything ran (taken now, before it runs).
  const before = cache && !usable ? script.createCachedData() : null;
  const cli = run(script, bundlePath);
  if (cache)
    process.once("exit", () => {
      // A cache holds what its run compiled. One made by a cold run (it derived and kept an answer)
      // would hold all that derivation took, which each warm run after it would read and load for
      // nothing (a warm `timeline` of 5,000 keys: 14–22 ms of CPU): it holds only what was compiled
      // before the run, and the first warm run makes it again with what a warm run compiles.
      const kind = cli.answersKind?.();
      if (!usable) saveCodeCache(cache, kind === "derived" ? before : script.createCachedData(), kind === "derived" ? COLD : WARM);
      else if (made === COLD && kind === "kept") saveCodeCache(cache, script.createCachedData(), WARM);
    });
  cli.main();
}

/**
 * A file's bytes, read into one buffer that each read reuses: the bundle's text is copied out of it
 * into a string, and its code cache then reads into the same memory. Each page a process touches
 * first is a fault of its own (on a VM, microseconds each); 1 MiB holds either file of a command's
 * bundle, so the second read faults no page the first already did.
 */
function readWhole(file) {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    if (wholeBuffer.length < size) wholeBuffer = Buffer.allocUnsafeSlow(Math.max(size, 1 << 20));
    let got = 0;
    for (let n = 1; got < size && n > 0; got += n) n = fs.readSync(fd, wholeBuffer, got, size - got, got);
    return wholeBuffer.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether dist/tab.js answered (`kept` of its exports: the text or bytes to print, or null), and what it answered went to stdout. */
function answeredFromTab(kept) {
  let answer = null;
  try {
    const file = path.join(__dirname, "..", "dist", "tab.js");
    answer = kept(run(new vm.Script(fs.readFileSync(file, "latin1"), { filename: file }), file));
  } catch {
    return false;
  }
  if (answer === null) return false;
  const bytes = Buffer.from(answer);
  let done = 0;
  try {
    while (done < bytes.length) done += fs.writeSync(1, bytes, done);
  } catch (err) {
    // A non-blocking pipe a parent left: Node's stream writes the rest as the pipe drains. A shell
    // that stopped reading (EPIPE) ends the list.
    if (err.code === "EAGAIN") process.stdout.on("error", () => {}).write(bytes.subarray(done));
  }
  return true;
}

/** A compiled bundle's exports: its function run with the CommonJS arguments, a `require` of Node's own modules only. */
function run(compiled, file) {
  const cjs = { exports: {} };
  const requireBuiltin = (id) =>
    process.getBuiltinModule(id) ??
    (() => {
      throw new Error(`not a Node builtin: ${id}`);
    })();
  compiled.runInThisContext()(cjs.exports, requireBuiltin, cjs, file, path.dirname(file));
  return cjs.exports;
}

/**
 * The code cache of this run of `command` from the bundle `source` (`file`, in `dir`), or null for
 * none (NODE_DISABLE_COMPILE_CACHE, or a bundle without its id). Beside Node's (NODE_COMPILE_CACHE), else in the tool's cache dir: outside
 * any OpenClaw store (a store is never written). One file per bundle (its content hash, which the
 * build writes on its first line: V8 itself checks only the length of the source), Node and its
 * flags (V8 refuses a cache made under others: the store readers' child runs with its own), and
 * command (a cache holds what its run compiled). Its first byte says which kind of run made it (COLD, WARM).
 */
function codeCache(source, command) {
  const env = process.env;
  const id = /^\/\/ openclaw-sessions bundle (\w+)\n/.exec(source.slice(0, 80))?.[1];
  if (env.NODE_DISABLE_COMPILE_CACHE || !id) return null;
  let dir;
  if (env.NODE_COMPILE_CACHE) dir = path.resolve(env.NODE_COMPILE_CACHE, "openclaw-sessions");
  else {
    // The index's base dir (src/store/cache/location.ts): a relative XDG_CACHE_HOME is not used.
    const xdg = env.XDG_CACHE_HOME?.trim();
    const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME?.trim() || process.getBuiltinModule("node:os").homedir(), ".cache");
    dir = path.join(base, "openclaw-sessions", "compile-cache");
  }
  const node = hash(`${process.version} ${process.arch} ${process.execArgv.join(" ")} ${env.NODE_OPTIONS ?? ""}`);
  return { dir, file: path.join(dir, `cli_${id}_${node}_${command}.cache`) };
}

/** A short, stable, non-cryptographic hash (node:crypto is not loaded for it). */
function hash(text) {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 33) + text.charCodeAt(i)) >>> 0;
  return h.toString(36);
}

/** The most code caches kept: the oldest written go first (an older install's, a command rarely run). */
const MAX_CACHES = 32;

/** Writes the code cache at exit, whole or not at all (a run beside it may be reading it). */
function saveCodeCache({ dir, file }, data, kind) {
  try {
    // The tool's cache dir is its owner's alone (the index beside it holds conversation text).
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const kept = fs
      .readdirSync(dir)
      .filter((n) => n.startsWith("cli_") && n.endsWith(".cache"))
      .map((n) => ({ p: path.join(dir, n), at: fs.statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.at - a.at);
    for (const old of kept.slice(MAX_CACHES - 1)) fs.rmSync(old.p, { force: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.concat([Buffer.of(kind), data]), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // no cache: a slower start next time, nothing else
  }
}
