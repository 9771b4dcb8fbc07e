/**
 * Builds the shipped CLI: src/cli/main.ts and everything it imports, dependencies included, as
 * one ESM entry (dist/cli.js) plus the chunks its lazy `import()`s load on first use. One file to
 * parse at start-up instead of hundreds, and an installed package with no runtime dependencies:
 * scripts/check-dist.mjs, run after the build, fails it when dist/ loads anything else.
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
fs.rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { cli: "src/cli/main.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  format: "esm",
  platform: "node",
  target: `node${pkg.engines.node.replace(/^>=/, "")}`,

  legalComments: "none",
  logLevel: "warning",
  // CommonJS dependencies (commander) call require() for Node's own modules, and so do the imports
  // of builtins below. Only Node's own modules are ever required (check-dist.mjs): taken from the
  // runtime, with no createRequire() per chunk (dozens load at each start). `globalThis.process`:
  // a chunk may bind its own `process` (an import of node:process).
  banner: {
    js: `const require = (id) => globalThis.process.getBuiltinModule(id) ?? (() => { throw new Error(\`not a Node builtin: \${id}\`); })();`,
  },
  plugins: [lazyChildProcess],
});

/**
 * An ESM `import` of a Node builtin builds its module namespace by reading every export, which runs
 * the lazy getters behind them: `import fs from "node:fs"` alone loads fs.promises, readline and
 * every stream class, a measurable part of each start. The bundle's static imports of builtins
 * become `require()`s (the banner's), which read only what the code uses; esbuild prints them
 * first in each file, so each is still bound before any of the file's code runs.
 */
function requireBuiltins(file) {
  const text = fs.readFileSync(file, "utf8");
  const out = text.replace(/^import (?:(\w+)|\* as (\w+)|\{([^}]*)\}) from "(node:[\w/]+)";$/gm, (_, def, ns, named, spec) => {
    const binding = def ?? ns ?? `{${named.replace(/\s+as\s+/g, ": ")}}`;
    return `const ${binding} = require(${JSON.stringify(spec)});`;
  });
  const left = /^import [^;]*from "node:[^"]*";$/m.exec(out);
  if (left) throw new Error(`${file}: an import of a builtin the build cannot turn into a require(): ${left[0]}`);
  if (out !== text) fs.writeFileSync(file, out);
}
const distFiles = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? distFiles(path.join(dir, e.name)) : path.join(dir, e.name)));
for (const file of distFiles(fileURLToPath(new URL("../dist", import.meta.url)))) if (file.endsWith(".js")) requireBuiltins(file);

// A module only node_modules has works from the clone and breaks the installed package.
const check = spawnSync(process.execPath, [fileURLToPath(new URL("./check-dist.mjs", import.meta.url))], { stdio: "inherit" });
if (check.status !== 0) process.exit(check.status ?? 1);

// The man page, from the built CLI's own --help of every command (package.json "man").
const man = spawnSync(process.execPath, [fileURLToPath(new URL("./build-man.mjs", import.meta.url))], { stdio: "inherit" });
if (man.status !== 0) process.exit(man.status ?? 1);
