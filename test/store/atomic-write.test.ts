/** The writers every command's file goes through: whole or absent, never clobbering by accident, no temp left. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openAtomicFile, placeDirAtomic, writeFileAtomic } from "../../src/store/atomic-write.js";
import { tempDir } from "../helpers/temp.js";

describe("openAtomicFile / writeFileAtomic", () => {
  it("writes through a temp in the target's dir; the target appears only on commit", () => {
    const dir = tempDir("ocs-atomic-");
    const target = path.join(dir, "out.html");
    const f = openAtomicFile(target);
    f.write("<p>");
    f.write(Buffer.from("hi</p>\n"));
    expect(fs.readdirSync(dir)).toEqual([path.basename(f.temp)]);
    expect(path.dirname(f.temp)).toBe(dir);
    f.commit();
    expect(fs.readdirSync(dir)).toEqual(["out.html"]);
    expect(fs.readFileSync(target, "utf8")).toBe("<p>hi</p>\n");
  });

  it("never replaces an existing file unless asked (EEXIST), and leaves no temp either way", () => {
    const dir = tempDir("ocs-atomic-");
    const target = path.join(dir, "x.jsonl");
    fs.writeFileSync(target, "old");
    expect(() => writeFileAtomic(target, "new")).toThrow(expect.objectContaining({ code: "EEXIST" }));
    expect(fs.readFileSync(target, "utf8")).toBe("old");
    expect(fs.readdirSync(dir)).toEqual(["x.jsonl"]);
    writeFileAtomic(target, "new", { replace: true });
    expect(fs.readFileSync(target, "utf8")).toBe("new");
    expect(fs.readdirSync(dir)).toEqual(["x.jsonl"]);
  });

  it("discard removes the temp and writes nothing", () => {
    const dir = tempDir("ocs-atomic-");
    const f = openAtomicFile(path.join(dir, "y.md"));
    f.write("partial");
    f.discard();
    f.discard();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("placeDirAtomic", () => {
  const fill = (files: Record<string, string>) => (staged: string) => {
    fs.mkdirSync(staged);
    for (const [n, t] of Object.entries(files)) fs.writeFileSync(path.join(staged, n), t);
  };

  it("stages beside, then renames; a replaced tree is gone only once the new one is in place", () => {
    const root = tempDir("ocs-atomic-dir-");
    const target = path.join(root, "skills", "s");
    fs.mkdirSync(path.dirname(target));
    placeDirAtomic(target, root, fill({ "SKILL.md": "one" }), { replace: false });
    expect(fs.readFileSync(path.join(target, "SKILL.md"), "utf8")).toBe("one");
    placeDirAtomic(target, root, fill({ "SKILL.md": "two" }), { replace: true });
    expect(fs.readdirSync(target)).toEqual(["SKILL.md"]);
    expect(fs.readFileSync(path.join(target, "SKILL.md"), "utf8")).toBe("two");
    expect(fs.readdirSync(root).sort()).toEqual(["skills"]);
  });

  it("a failing fill leaves the installed tree as it was and no staged dir", () => {
    const root = tempDir("ocs-atomic-dir-");
    const target = path.join(root, "s");
    placeDirAtomic(target, root, fill({ a: "1" }), { replace: false });
    const failing = (staged: string) => {
      fill({ a: "2" })(staged);
      throw new Error("disk full");
    };
    expect(() => placeDirAtomic(target, root, failing, { replace: true })).toThrow("disk full");
    expect(fs.readFileSync(path.join(target, "a"), "utf8")).toBe("1");
    expect(fs.readdirSync(root)).toEqual(["s"]);
  });
});
