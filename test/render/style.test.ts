import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { loadColours, makeStyle } from "../../src/render/style.js";

describe("makeStyle", () => {
  it("level 0 (no chalk loaded for it) gives what chalk at level 0 gives, for every style and chain the renderers use", () => {
    const plain = makeStyle(0).c;
    const chalk0 = new Chalk({ level: 0 });
    const calls: Array<[string, unknown[]]> = [
      ["dim", ["a"]],
      ["bold", ["x y"]],
      ["red.bold", ["multi\nline"]],
      ["cyan.bold", [42]],
      ["bold.blue", ["a", "b", 3]],
      ["yellow", [""]],
      ["green", []],
      ["visible", ["shown only with colour"]],
    ];
    for (const [chain, args] of calls) {
      const pick = (c: unknown) =>
        chain.split(".").reduce((f, name) => (f as Record<string, unknown>)[name], c) as (...a: unknown[]) => string;
      expect(pick(plain)(...args), chain).toBe(pick(chalk0)(...args));
    }
    expect(plain.level).toBe(0);
  });

  it("colour: chalk's own output, once it is loaded", async () => {
    await loadColours();
    const c = makeStyle(1).c;
    expect(c.red.bold("x")).toBe(new Chalk({ level: 1 }).red.bold("x"));
    expect(c.red.bold("x")).not.toBe("x");
  });
});
