/** The one realpath rule of the containment checks, on real dirs and symlinks. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { realPath } from "../../src/store/real-path.js";
import { tempDir } from "../helpers/temp.js";

/** A temp dir by its real name (os.tmpdir() may itself be behind a symlink). */
function realTemp(): string {
  return fs.realpathSync(tempDir("ocs-real-path-"));
}

describe("realPath", () => {
  it("resolves symlinks of a path that exists", () => {
    const root = realTemp();
    fs.mkdirSync(path.join(root, "real", "sessions"), { recursive: true });
    fs.writeFileSync(path.join(root, "real", "sessions", "a.jsonl"), "");
    fs.symlinkSync(path.join(root, "real"), path.join(root, "link"));
    expect(realPath(path.join(root, "link", "sessions", "a.jsonl"))).toBe(path.join(root, "real", "sessions", "a.jsonl"));
    expect(realPath(path.join(root, "link"))).toBe(path.join(root, "real"));
    expect(realPath(path.join(root, "real", "sessions"))).toBe(path.join(root, "real", "sessions"));
  });

  it("a path that does not exist yet is its nearest existing ancestor, resolved, plus the rest", () => {
    const root = realTemp();
    fs.mkdirSync(path.join(root, "real"));
    fs.symlinkSync(path.join(root, "real"), path.join(root, "link"));
    expect(realPath(path.join(root, "link", "new", "out.md"))).toBe(path.join(root, "real", "new", "out.md"));
    expect(realPath(path.join(root, "link", "out.md"))).toBe(path.join(root, "real", "out.md"));
  });

  it("climbs past a dangling symlink to what exists", () => {
    const root = realTemp();
    fs.mkdirSync(path.join(root, "real"));
    fs.symlinkSync(path.join(root, "real"), path.join(root, "link"));
    fs.symlinkSync(path.join(root, "gone"), path.join(root, "real", "dangling"));
    expect(realPath(path.join(root, "link", "dangling"))).toBe(path.join(root, "real", "dangling"));
  });

  it("resolves a relative path from the working dir", () => {
    expect(realPath(".")).toBe(fs.realpathSync(process.cwd()));
  });
});
