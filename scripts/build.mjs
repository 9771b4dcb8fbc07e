/**
 * Builds the shipped CLI: src/cli/main.ts and everything it imports, dependencies included, as
 * one ESM entry (dist/cli.js) plus the chunks its lazy `import()`s load on first use. One file to
 * parse at start-up instead of hundreds, and an installed package with no runtime dependencies.
 */
import { build } from "esbuild";
import fs from "node:fs";

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
  // CommonJS dependencies (cli-table3, json5) call require() for Node's own modules.
  banner: { js: 'import { createRequire as __ocsRequire } from "node:module"; const require = __ocsRequire(import.meta.url);' },
});
