/**
 * Builds the shipped CLI: src/cli/main.ts and everything it imports, dependencies included, as one
 * file, dist/cli.js. It is a CommonJS body wrapped in a function expression, which bin/ compiles
 * with node:vm and a code cache of its own (one file to read, one compile; see the bin for why).
 * Modules a command loads lazily (`import()`) are in it too, but run only when first imported.
 * It ships minified (minify(), below): `npm run dev` runs the sources for a readable stack.
 * No runtime dependencies: scripts/check-dist.mjs, run after the build, fails it when dist/ loads
 * anything but Node's own modules.
 *
 * Each file of dist/ is replaced whole (written beside it, then renamed over it), never removed
 * first: a run of the CLI beside a build (the suite's global setup and `npm run conformance` each
 * build their checkout) reads the bundle before or the one after, never none or half of one.
 */
import { build, transformSync } from "esbuild";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"));

/**
 * commander requires node:child_process when it loads, for executable subcommands this CLI never
 * has: loading it (with net, dgram, streams) was a measurable part of every start. Its
 * `require("node:child_process")` gets a stand-in that loads the module on first use instead.
 */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[/\\]node_modules[/\\]commander[/\\]/.test(args.importer) ? { path: "node:child_process", namespace: "lazy-builtin" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      contents: `let m; module.exports = new Proxy({}, { get: (_, name) => (m ??= require(${JSON.stringify(args.path)}))[name] });`,
      loader: "js",
    }));
  },
};
/**
 * ora takes two spinners of cli-spinners' ninety (`dots`, and `line` where Unicode is not
 * supported) and the CLI names none: the others (49 KB) would be read and compiled at every start.
 */
const twoSpinners = {
  name: "two-spinners",
  setup(b) {
    b.onResolve({ filter: /^cli-spinners$/ }, (args) =>
      args.pluginData === "real" ? undefined : { path: args.path, namespace: "two-spinners", pluginData: args.resolveDir },
    );
    b.onLoad({ filter: /.*/, namespace: "two-spinners" }, async (args) => {
      // The package ora itself resolves: its spinners.json beside its index.
      const real = await b.resolve(args.path, { kind: "import-statement", resolveDir: args.pluginData, pluginData: "real" });
      if (real.errors.length > 0) throw new Error(`cli-spinners: ${real.errors[0].text}`);
      const all = JSON.parse(fs.readFileSync(new URL("spinners.json", pathToFileURL(real.path)), "utf8"));
      if (!all.dots || !all.line) throw new Error("cli-spinners: no dots or line spinner");
      return { contents: `export default ${JSON.stringify({ dots: all.dots, line: all.line })};`, loader: "js" };
    });
  },
};

/**
 * Commands run often enough, and small enough beside the whole CLI, to get a bundle of their own,
 * dist/commands/<name>.js, which the bin runs for them: the same main and program, with the command
 * list (src/cli/command-list.ts) replaced by the one of src/cli/lean/ named here. A run then
 * reads and compiles half the code (for `ls`, about 0.7 of 1.4 MB).
 */
const LEAN = { ls: "src/cli/lean/ls.ts", __complete: "src/cli/lean/complete.ts" };

/** Program's command list, replaced by `list` (its use is checked after the build). */
function commandList(list, used) {
  return {
    name: "command-list",
    setup(b) {
      b.onResolve({ filter: /^\.\/command-list\.js$/ }, (args) => {
        if (!/[/\\]src[/\\]cli[/\\]program\.ts$/.test(args.importer)) return undefined;
        used.add(list);
        return { path: fileURLToPath(new URL(`../${list}`, import.meta.url)) };
      });
    },
  };
}

const TARGET = `node${pkg.engines.node.replace(/^>=/, "")}`;
/** What opens a bundle's body (the banner; the footer closes it): a function taking the CommonJS arguments. */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {\n";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const MAIN = "src/cli/main.ts";
/**
 * What the bin runs for `__complete keys` before any of the CLI: the keys a Tab before left, while
 * their proof holds (src/cli/tab-keys.ts). A few KB, so a Tab of zsh or fish reads and compiles
 * none of the CLI's while nothing changed.
 */
const TAB = { entry: "src/cli/tab-keys.ts", outfile: "dist/tab.js", plugins: [] };

const bundles = [{ entry: MAIN, outfile: "dist/cli.js", plugins: [] }, TAB];
const used = new Set();
for (const [name, list] of Object.entries(LEAN))
  bundles.push({ entry: MAIN, outfile: `dist/commands/${name}.js`, plugins: [commandList(list, used)] });
/** Each bundle's text, by its path under the package root, as it is written. */
const texts = new Map();
for (const { entry, outfile, plugins } of bundles) {
  const { outputFiles } = await build({
    entryPoints: [entry],
    outfile,
    write: false,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: TARGET,
    legalComments: "none",
    logLevel: "warning",
    // The bin runs this file's value, a function, with the CommonJS arguments; `require` gives Node's
    // own modules only (check-dist.mjs). A module's URL (package-info.ts finds the package root from
    // it) is this file's.
    banner: {
      js: `${WRAPPER}"use strict";\nconst __moduleUrl = require("node:url").pathToFileURL(__filename).href;`,
    },
    footer: { js: "})" },
    define: { "import.meta.url": "__moduleUrl" },
    plugins: [lazyChildProcess, twoSpinners, ...plugins],
  });
  if (outputFiles.length !== 1) throw new Error(`${outfile}: esbuild made ${outputFiles.length} files, not one`);
  texts.set(outfile, finish(outputFiles[0].text, outfile));
}
for (const list of Object.values(LEAN))
  if (!used.has(list)) throw new Error(`${list}: src/cli/program.ts no longer imports ./command-list.js`);

// A module only node_modules has works from the clone and breaks the installed package.
// Checked before minify(), which renames the loader functions the check looks for (esbuild's
// __require): on a copy of the package's code in a dir of its own, dist/ not yet touched.
const staged = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-build-"));
try {
  fs.cpSync(path.join(ROOT, "bin"), path.join(staged, "bin"), { recursive: true });
  for (const [outfile, text] of texts) writeWhole(path.join(staged, outfile), text);
  const check = spawnSync(process.execPath, [fileURLToPath(new URL("./check-dist.mjs", import.meta.url)), staged], { stdio: "inherit" });
  if (check.status !== 0) process.exit(check.status ?? 1);
} finally {
  fs.rmSync(staged, { recursive: true, force: true });
}
// `--no-minify`: names kept, for a profile that names functions.
for (const [outfile, text] of texts)
  writeWhole(path.join(ROOT, outfile), withId(process.argv.includes("--no-minify") ? text : minify(text, outfile)));
removeStale(path.join(ROOT, "dist"), new Set([...texts.keys()].map((f) => path.join(ROOT, f))));

// The man page, from the built CLI's own --help of every command (package.json "man").
const man = spawnSync(process.execPath, [fileURLToPath(new URL("./build-man.mjs", import.meta.url))], { stdio: "inherit" });
if (man.status !== 0) process.exit(man.status ?? 1);

/**
 * What the build then does to the bundle's text, each step checked (a newer esbuild that writes it
 * otherwise fails the build):
 * - ASCII only (\u escapes, which mean the same in comments, strings, templates, regular
 *   expressions and identifiers; only a raw template's text would differ, and the sources have
 *   none that holds such a character): V8 then keeps it as a one-byte string and the bin reads it
 *   as latin1, several times faster than decoding UTF-8;
 * - no import() left in it (the bin compiles it with no ESM loader behind it);
 * - esbuild's `__toESM`, which copies every export of a CommonJS module (a Node builtin: fs has
 *   about a hundred) into a new object for each module that imports it, makes one object per
 *   module that reads them through its prototype;
 * - its id (a hash of its content) on its first line (withId), once it is minified.
 */
function finish(text, bundlePath) {
  const TO_ESM = "var __toESM = (mod, isNodeMode, target) => ";
  let bundle = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const dynamicImport = /(?<![\w$.])import\(/.exec(bundle);
  if (dynamicImport)
    throw new Error(
      `${bundlePath}: an import() esbuild left as it is (take a builtin with process.getBuiltinModule): ${bundle.slice(dynamicImport.index, dynamicImport.index + 60)}`,
    );
  if (bundle.split(TO_ESM).length !== 2) throw new Error(`${bundlePath}: expected one "${TO_ESM}"`);
  bundle = bundle.replace(
    TO_ESM,
    `var __toESMOnce = new WeakMap();
var __toESM = (mod, isNodeMode) => {
  if (mod === null || (typeof mod !== "object" && typeof mod !== "function") || (!isNodeMode && mod.__esModule)) return __toESMCopy(mod, isNodeMode);
  // Here the copy would be the module's members and a default, the module: one object per
  // module, each member read through its prototype, the module (no getter per member made).
  let ns = __toESMOnce.get(mod);
  if (ns === undefined) __toESMOnce.set(mod, (ns = Object.create(mod, { default: { value: mod, enumerable: true } })));
  return ns;
};
var __toESMCopy = (mod, isNodeMode, target) => `,
  );
  return bundle;
}

/**
 * The bundle minified, names included: about half the bytes (`ls`'s 790 KB become 400), and each
 * start reads them, copies them into a string and checks its code cache against them (4 ms of an
 * `ls` on an empty store, of the 25–30 it adds to Node's own start: docs/performance.md). The body is minified as
 * CommonJS: its `require`, `module` and `exports` are the wrapper's, never renamed.
 */
function minify(text, bundlePath) {
  const bundle = text.trimEnd();
  if (!bundle.startsWith(WRAPPER) || !bundle.endsWith("})")) throw new Error(`${bundlePath}: not the wrapped body the build writes`);
  const { code } = transformSync(bundle.slice(WRAPPER.length, -2), {
    minify: true,
    format: "cjs",
    platform: "node",
    target: TARGET,
    charset: "ascii",
    legalComments: "none",
  });
  if (/[^\x00-\x7f]/.test(code)) throw new Error(`${bundlePath}: minified, it is no longer ASCII`);
  return `${WRAPPER}${code}})\n`;
}

/** A bundle with its id (a hash of its content) on its first line: the bin keys its code cache on it. */
function withId(bundle) {
  // V8 checks only the length of the source a code cache was made from.
  const id = createHash("sha256").update(bundle).digest("hex").slice(0, 20);
  return `// openclaw-sessions bundle ${id}\n${bundle}`;
}

/** Writes `file` whole: beside it first, then renamed over it (a reader finds the old file or the new). */
function writeWhole(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
}

/**
 * What an earlier build left in `dir` that this one did not write (a command's own bundle no
 * longer built), and a temp file a killed build left (one a build beside this one may still
 * be writing is younger than a minute).
 */
function removeStale(dir, written) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || written.has(file)) continue;
    if (!file.endsWith(".tmp") || Date.now() - fs.statSync(file).mtimeMs > 60_000) fs.rmSync(file, { force: true });
  }
}
