#!/usr/bin/env node
// Plain JavaScript that any Node parses: the runtime check must run before the bundle loads.

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

// Builtins as the bundle takes them (scripts/build.mjs): an ESM import of node:fs would load every stream class.
const fs = process.getBuiltinModule("node:fs");

// `--version` answers before anything else loads: it is what scripts and shells call most.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
  process.exit(0);
}

// Compiled code is cached between runs, outside any OpenClaw store (a store is never written).
const module = process.getBuiltinModule("node:module");
if (module.enableCompileCache && !process.env.NODE_COMPILE_CACHE) {
  const path = process.getBuiltinModule("node:path");
  const os = process.getBuiltinModule("node:os");
  const cacheHome = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  try {
    // The tool's cache dir is its owner's alone (the index beside it holds conversation text).
    fs.mkdirSync(path.join(cacheHome, "openclaw-sessions"), { recursive: true, mode: 0o700 });
    module.enableCompileCache(path.join(cacheHome, "openclaw-sessions", "compile-cache"));
  } catch {
    // no cache: a slower start, nothing else
  }
}

// A clone that was never built (the package users install ships dist/): say how, not a stack trace.
const bundle = new URL("../dist/cli.js", import.meta.url);
if (!fs.existsSync(bundle)) {
  process.stderr.write(
    `openclaw-sessions: ${process.getBuiltinModule("node:url").fileURLToPath(bundle)} is missing: this is an unbuilt source checkout; run \`npm run build\` in it first\n`,
  );
  process.exit(3);
}
const { main } = await import("../dist/cli.js");
await main();
