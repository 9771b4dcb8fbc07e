import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const SCRIPT = path.join(ROOT, "scripts/check-imports.mjs");
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** Runs the import check on a tree of src/ files; status 0 or 1 and what it printed. */
function check(files: Record<string, string>): { status: number; out: string } {
  const root = tempDir("ocs-imports-");
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, "src", rel)), { recursive: true });
    fs.writeFileSync(path.join(root, "src", rel), text);
  }
  try {
    return { status: 0, out: execFileSync(process.execPath, [SCRIPT, root], { encoding: "utf8", stdio: "pipe" }) };
  } catch (e) {
    const err = e as { status: number; stderr: string };
    return { status: err.status, out: err.stderr };
  }
}

describe("scripts/check-imports.mjs", () => {
  it("passes a tree that keeps the layers", () => {
    const r = check({
      "cli/main.ts": 'import { render } from "../render/x.js";\nexport const main = render;\n',
      "render/x.ts": 'import type { Data } from "../commands/y.js";\nexport const render = (d: Data) => d;\n',
      "commands/y.ts": 'import { pure } from "../core/z.js";\nexport type Data = ReturnType<typeof pure>;\n',
      "core/z.ts": 'import path from "node:path";\nexport const pure = () => path.sep;\n',
    });
    expect(r).toMatchObject({ status: 0 });
    expect(r.out).toContain("4 files, 3 imports");
  });

  it("names an import from a lower layer to a higher one, type-only included", () => {
    const r = check({
      "render/x.ts": 'import type { IO } from "../cli/io.js";\nexport type X = IO;\n',
      "cli/io.ts": "export interface IO { a: 1 }\n",
    });
    expect(r.status).toBe(1);
    expect(r.out).toContain("src/render/x.ts:1: render imports cli (src/cli/io.ts)");
  });

  it("names core touching the filesystem", () => {
    const r = check({ "core/a.ts": 'import fs from "node:fs/promises";\nexport const a = fs;\n' });
    expect(r.status).toBe(1);
    expect(r.out).toContain("src/core/a.ts:1: core imports node:fs/promises");
  });

  it("names a cycle made of a type-only import and a dynamic import()", () => {
    const r = check({
      "cli/a.ts": 'import type { B } from "./b.js";\nexport type A = B;\n',
      "cli/b.ts": 'export type B = 1;\nexport const load = () => import("./a.js");\n',
    });
    expect(r.status).toBe(1);
    expect(r.out).toContain("import cycle: src/cli/a.ts ↔ src/cli/b.ts");
  });
});
