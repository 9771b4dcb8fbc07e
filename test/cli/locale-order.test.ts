/**
 * The same answer in every locale: the tool orders text by code unit (core/order.ts), so the
 * user's locale changes no output, and an answer the index kept in one locale (its key names no
 * locale) is the one a run in another would derive. Child processes of the shipped entry: Node
 * takes its ICU locale from LC_ALL / LANG when it starts. Danish sorts "aa" as "å", after "z" (a
 * transcript's UUID name holds "aa" often) and capitals first; Turkish has its own i.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateStore } from "../../bench/gen-store.js";
import { BIN } from "../helpers/built-cli.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { tempDir } from "../helpers/temp.js";

const KEYS = [
  "agent:main:telegram:direct:zz",
  "agent:main:telegram:direct:aa",
  "agent:main:telegram:direct:Bob",
  "agent:main:telegram:direct:_x",
];
const LOCALES = ["en_US.UTF-8", "da_DK.UTF-8", "tr_TR.UTF-8"];
const NOW = "2026-12-01T00:00:00.000Z";

let root = "";
let stateDir = "";

beforeAll(async () => {
  root = tempDir("ocs-locale-");
  stateDir = generateStore(root, { keys: KEYS.length, seed: 7 }).stateDir;
  const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
  const entries = Object.values(JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>);
  fs.writeFileSync(storePath, JSON.stringify(Object.fromEntries(KEYS.map((k, i) => [k, entries[i]])), null, 2));
  await pastRacyWindow(); // so the first indexed run keeps its answers, and the next locales are handed them
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function run(args: string[], locale: string, cache: string): string {
  const r = spawnSync(process.execPath, [BIN, ...args, "--state-dir", stateDir], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: root, XDG_CACHE_HOME: cache, NO_COLOR: "1", TZ: "UTC", LANG: locale, LC_ALL: locale },
  });
  expect(r.stderr, `${args.join(" ")} in ${locale}`).not.toMatch(/at .*\.js:\d+/);
  return r.stdout;
}

describe("the order of an answer does not depend on the user's locale", () => {
  it("ls, timeline and check: the same bytes in English, Danish and Turkish, indexed (kept answers) or not", () => {
    const cache = path.join(root, "cache");
    const commands = [
      ["ls", "--json", "--sort", "key"],
      ["ls", "--sort", "key"],
      ["timeline", "--json", "--sort", "key"],
      ["timeline", "--json"],
      ["check", "--json", "--now", NOW],
      ["check", "--now", NOW],
    ];
    for (const args of commands) {
      const outputs = LOCALES.flatMap((locale) => [
        run(args, locale, cache),
        run([...args, "--no-index"], locale, path.join(root, "none")),
      ]);
      expect(outputs[0], args.join(" ")).not.toBe("");
      for (const [i, out] of outputs.entries()) expect(out, `${args.join(" ")}, run ${i} (${LOCALES[i >> 1]})`).toBe(outputs[0]);
    }
    // And that order is the code units' (capitals, then "_", then small letters), not any locale's.
    const keys = (
      JSON.parse(run(["ls", "--json", "--sort", "key"], "da_DK.UTF-8", cache)) as { sessions: Array<{ sessionKey: string }> }
    ).sessions.map((s) => s.sessionKey);
    expect(keys).toEqual([...KEYS].sort());
  });
});
