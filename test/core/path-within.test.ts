/** The one containment rule: "the dir or below it" and "strictly below it", lexically. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isStrictlyInside, isWithinDir, relativeInside } from "../../src/core/path-within.js";

describe("isWithinDir", () => {
  it("is the dir itself or anything below it", () => {
    expect(isWithinDir("/s/sessions", "/s/sessions")).toBe(true);
    expect(isWithinDir("/s/sessions", "/s/sessions/")).toBe(true);
    expect(isWithinDir("/s/sessions", "/s/sessions/a.jsonl")).toBe(true);
    expect(isWithinDir("/s/sessions/", "/s/sessions/sub/a.jsonl")).toBe(true);
    expect(isWithinDir("/", "/anything")).toBe(true);
  });

  it("is not a sibling with the same prefix, a parent, or a path that climbs out", () => {
    expect(isWithinDir("/s/sessions", "/s/sessions-old/a.jsonl")).toBe(false);
    expect(isWithinDir("/s/sessions", "/s")).toBe(false);
    expect(isWithinDir("/s/sessions", "/s/sessions/../other/a.jsonl")).toBe(false);
    expect(isWithinDir("/s/sessions", "/elsewhere")).toBe(false);
  });

  it("a name that only starts with two dots is still below the dir", () => {
    expect(isWithinDir("/s/sessions", "/s/sessions/..hidden")).toBe(true);
    expect(isWithinDir("/s/sessions", "/s/sessions/...")).toBe(true);
  });
});

describe("isStrictlyInside", () => {
  it("is below the dir, never the dir itself", () => {
    expect(isStrictlyInside("/s/sessions", "/s/sessions/a.jsonl")).toBe(true);
    expect(isStrictlyInside("/s/sessions", "/s/sessions/..hidden")).toBe(true);
    expect(isStrictlyInside("/s/sessions", "/s/sessions")).toBe(false);
    expect(isStrictlyInside("/s/sessions", "/s/sessions/.")).toBe(false);
    expect(isStrictlyInside("/s/sessions", "/s/sessions-old/a.jsonl")).toBe(false);
    expect(isStrictlyInside("/s/sessions", "/s/sessions/../a.jsonl")).toBe(false);
  });
});

describe("relativeInside and isWithinDir, for every shape of dir and path", () => {
  it("say what path.relative says: a path below the dir (relativeInside, null otherwise), or the dir itself too (isWithinDir)", () => {
    for (const dir of SHAPES.dirs)
      for (const base of SHAPES.bases)
        for (const tail of SHAPES.tails) {
          const p = base + tail;
          const rel = path.relative(dir, p);
          const below = rel !== "" && rel !== ".." && !rel.startsWith("../") && !path.isAbsolute(rel);
          expect(relativeInside(dir, p), `${dir} ${p}`).toBe(below ? rel : null);
          expect(isWithinDir(dir, p), `${dir} ${p}`).toBe(below || rel === "");
        }
  });
});

/** Dirs and paths of every shape: trailing and doubled slashes, dot segments, the root, a shared prefix. */
const SHAPES = {
  dirs: ["/s/sessions", "/s/sessions/", "/s//sessions", "/s/./sessions", "/s/x/../sessions", "/", "/s/sess", "/s/sessions/.."],
  bases: ["/s/sessions", "/s", "/elsewhere", "/s/sessions/sub"],
  tails: ["", "/", "/a.jsonl", "/sub/a.jsonl", "/..hidden", "/...", "/.", "/..", "/../a.jsonl", "-old/a.jsonl", "//a", "/./a", "/a/"],
};
