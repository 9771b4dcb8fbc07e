import fs from "node:fs";
import path from "node:path";
import JSON5 from "json5";
import { describe, expect, it } from "vitest";
import { configuredChannels, parseJson5, readConfig } from "../../src/store/config.js";
import { UnreadableLog } from "../../src/store/safe-read.js";
import { tempDir } from "../helpers/temp.js";

/** Same value, same own keys (a `__proto__` key included), same -0. */
function expectSame(a: unknown, b: unknown): void {
  expect(Object.is(a, b) || JSON.stringify(a) === JSON.stringify(b)).toBe(true);
  expect(a).toStrictEqual(b);
  if (a && typeof a === "object") {
    expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
    expect(Reflect.ownKeys(a)).toEqual(Reflect.ownKeys(b as object));
  }
}

describe("parseJson5", () => {
  it("gives JSON5's value for plain JSON, read by the JSON fast path", () => {
    const texts = [
      '{"channels": {"telegram": {"enabled": true, "botToken": "1:x"}}, "session": {"reset": {"mode": "idle", "idleMinutes": 30}}}',
      '{"__proto__": {"polluted": true}, "a": 1}',
      '{"a": 1, "a": 2}',
      "-0",
      '{"n": [-0, 0, 1e400, -1e400, 1.5e-7, 12345678901234567890]}',
      '"a line separator, escaped: \\u2028"',
      '{"s": "\\ud83d\\ude00 \\/ \\" \\\\ \\b\\f\\n\\r\\t"}',
      ' \n\t[1, "two", null, true, false, {}, []] \r\n',
      "[[[[[[[[[[]]]]]]]]]]",
    ];
    for (const text of texts) expectSame(parseJson5(text), JSON5.parse(text));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reads what only JSON5 reads: comments, trailing commas, unquoted keys, single quotes, hex, Infinity", () => {
    const text = "// hand-written\n{ session: { reset: { mode: 'idle', idleMinutes: 0x1e, }, }, /* c */ max: Infinity, n: +1, }\n\uFEFF";
    expect(() => JSON.parse(text)).toThrow();
    expectSame(parseJson5(text), JSON5.parse(text));
    expect(parseJson5(text)).toEqual({ session: { reset: { mode: "idle", idleMinutes: 30 } }, max: Infinity, n: 1 });
    expectSame(parseJson5('\uFEFF{"a": 1}'), JSON5.parse('\uFEFF{"a": 1}'));
  });

  it("throws JSON5's error on what neither reads", () => {
    expect(() => parseJson5("{ session: ")).toThrow(/^JSON5: /);
  });
});

describe("readConfig", () => {
  it("reads a JSON5 openclaw.json, and names a file it cannot parse by JSON5's message", () => {
    const dir = tempDir("ocs-config-");
    const file = path.join(dir, "openclaw.json");
    fs.writeFileSync(
      file,
      "{\n  // channels OpenClaw activates\n  channels: { telegram: { enabled: true, }, discord: { enabled: false } },\n}\n",
    );
    const ok = readConfig(file);
    expect(ok).toEqual({ path: file, raw: { channels: { telegram: { enabled: true }, discord: { enabled: false } } } });
    expect([...configuredChannels(ok)]).toEqual(["telegram"]);
    fs.writeFileSync(file, "{ channels: ");
    const bad = readConfig(file);
    expect(bad.raw).toEqual({});
    expect(bad.problem).toMatch(
      new RegExp(`^cannot parse ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: JSON5: invalid end of input at 1:13$`),
    );
    expect(readConfig(path.join(dir, "absent.json"))).toEqual({ path: null, raw: {} });
  });

  it("a symlink loop or a dangling symlink is a problem named as unreadable, never a silent absent config", async () => {
    const dir = tempDir("ocs-config-");
    const loop = path.join(dir, "loop.json");
    fs.symlinkSync(loop, loop);
    const dangling = path.join(dir, "dangling.json");
    fs.symlinkSync(path.join(dir, "gone.json"), dangling);
    const log = new UnreadableLog();
    const read = await log.run(async () => [readConfig(loop), readConfig(dangling), readConfig(path.join(dir, "absent.json"))]);
    expect(read).toEqual([
      { path: loop, raw: {}, problem: `cannot read ${loop}: a symlink loop` },
      { path: dangling, raw: {}, problem: `cannot read ${dangling}: a dangling symlink` },
      { path: null, raw: {} },
    ]);
    expect(log.files()).toEqual([
      { path: loop, cause: "a symlink loop" },
      { path: dangling, cause: "a dangling symlink" },
    ]);
  });
});
