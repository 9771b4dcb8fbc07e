/**
 * Builds the shipped CLI: src/cli/main.ts and everything it imports, dependencies included, as
 * one ESM entry (dist/cli.js) plus the chunks its lazy `import()`s load on first use. One file to
 * parse at start-up instead of hundreds, and an installed package with no runtime dependencies:
 * scripts/check-dist.mjs, run after the build, fails it when dist/ loads anything else.
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"));
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
  // CommonJS dependencies (cli-table3) call require() for Node's own modules. A createRequire()
  // of a package is not bundled (esbuild cannot see it): the check below refuses one.
  banner: { js: 'import { createRequire as __ocsRequire } from "node:module"; const require = __ocsRequire(import.meta.url);' },
});

// A module only node_modules has works from the clone and breaks the installed package.
const check = spawnSync(process.execPath, [fileURLToPath(new URL("./check-dist.mjs", import.meta.url))], { stdio: "inherit" });
if (check.status !== 0) process.exit(check.status ?? 1);
