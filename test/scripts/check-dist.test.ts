import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const SCRIPT = path.join(ROOT, "scripts/check-dist.mjs");

/** Runs the dist check on a package tree (paths relative to its root); status and what it printed. */
function check(files: Record<string, string>): { status: number | null; out: string; err: string } {
  const root = tempDir("ocs-dist-");
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** A package that loads builtins and its own files in every way a bundle does. */
const CLEAN = {
  "bin/cli.js": 'import fs from "node:fs";\nconst { main } = await import("../dist/cli.js");\nawait main(fs);\n',
  "dist/cli.js": [
    'import { createRequire as __ocsRequire } from "node:module"; const require = __ocsRequire(import.meta.url);',
    'import { a } from "./chunks/a.js";',
    'export { b } from "./chunks/b.js";',
    'import path from "path";',
    'const os = require("node:os");',
    'export const main = async () => [a, path, os, (await import("./chunks/b.js")).b, (await import("node:sqlite")).DatabaseSync];',
    "",
  ].join("\n"),
  "dist/chunks/a.js": 'import { __require } from "./helpers.js";\nexport const a = __require("node:events");\n',
  "dist/chunks/b.js": 'export const b = import.meta.resolve("./a.js");\n',
  "dist/chunks/helpers.js": "export const __require = (x) => x;\n",
};

describe("scripts/check-dist.mjs", () => {
  it("passes a package that loads only Node builtins and its own files", () => {
    const r = check(CLEAN);
    expect(r.err).toBe("");
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^check-dist: 5 files, \d+ module loads/);
  });

  it("names a package loaded through createRequire, the way json5 escaped the bundle", () => {
    const r = check({
      ...CLEAN,
      "dist/chunks/config.js": [
        'import { createRequire } from "node:module";',
        "const require2 = createRequire(import.meta.url);",
        'export const json5 = () => require2("json5");',
        "",
      ].join("\n"),
    });
    expect(r.status).toBe(1);
    expect(r.err).toContain('dist/chunks/config.js:3: requires "json5", neither a Node builtin nor a file shipped in dist/');
  });

  it("names a bare require(), import and export of a package, and esbuild's __require of one", () => {
    const r = check({
      ...CLEAN,
      "dist/chunks/c.js": [
        'import { createRequire as __ocsRequire } from "node:module"; const require = __ocsRequire(import.meta.url);',
        'import "x";',
        'export * from "y";',
        'export const z = require("json5");',
        "",
      ].join("\n"),
      "dist/chunks/d.js": 'import { __require } from "./helpers.js";\nexport const t = __require("cli-table3");\n',
    });
    expect(r.status).toBe(1);
    expect(r.err).toContain('dist/chunks/c.js:2: imports "x"');
    expect(r.err).toContain('dist/chunks/c.js:3: imports "y"');
    expect(r.err).toContain('dist/chunks/c.js:4: requires "json5"');
    expect(r.err).toContain('dist/chunks/d.js:2: requires "cli-table3"');
    expect(r.err).toContain("check-dist: 4 problem(s)");
  });

  it("names a dynamic import of a package, a file not shipped, and a module named at run time", () => {
    const r = check({
      ...CLEAN,
      "dist/chunks/e.js": [
        'export const f = () => import("ora");',
        'export const g = () => import("./gone.js");',
        'export const h = () => import("../../node_modules/json5/lib/index.js");',
        "export const i = (name) => require(name);",
        "",
      ].join("\n"),
    });
    expect(r.status).toBe(1);
    expect(r.err).toContain('dist/chunks/e.js:1: imports "ora"');
    expect(r.err).toContain('dist/chunks/e.js:2: imports "./gone.js"');
    expect(r.err).toContain('dist/chunks/e.js:3: imports "../../node_modules/json5/lib/index.js"');
    expect(r.err).toContain("dist/chunks/e.js:4: requires a module named at run time");
  });

  it("fails on a package with no dist/ at all", () => {
    const r = check({ "bin/cli.js": 'import "node:fs";\n' });
    expect(r.status).toBe(1);
    expect(r.err).toContain("no built code");
  });
});
