/** `ls --since/--channel/--has/--sort/--limit`: which keys, in what order, and the count line. */
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, scenarioDir } from "../helpers/corpus.js";
import path from "node:path";

const files = (name: string) => path.join(scenarioDir("files", name), "state");
const keysOf = (r: { json: () => { sessions: Array<{ sessionKey: string }> } }) => r.json().sessions.map((s) => s.sessionKey);

describe("ls key query", () => {
  it("filters by channel, archives, deletes and last activity; sorts by key, size and archives; limits", async () => {
    const state = files("custom-session-file"); // main (2 reset archives), cron:nightly-digest, webchat:direct:relative-notes
    const all = await cli(["ls", "--state-dir", state, "--json"]);
    expect(keysOf(all)).toHaveLength(3);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--channel", "WEBCHAT"]))).toEqual([
      "agent:main:webchat:direct:relative-notes",
    ]);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--has", "archives"]))).toEqual(["agent:main:main"]);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--has", "archives", "--has", "deletes"]))).toEqual([]);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--sort", "key", "--limit", "2"]))).toEqual([
      "agent:main:cron:nightly-digest",
      "agent:main:main",
    ]);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--sort", "archives", "--limit", "1"]))).toEqual(["agent:main:main"]);
    // size: the active transcript and every archive; the two missing actives weigh their archives only
    const bySize = all
      .json()
      .sessions.map((s: { sessionKey: string; active: { bytes: number | null }; archives: Array<{ bytes: number }> }) => ({
        key: s.sessionKey,
        bytes: (s.active.bytes ?? 0) + s.archives.reduce((n, a) => n + a.bytes, 0),
      }));
    bySize.sort((a: { bytes: number }, b: { bytes: number }) => b.bytes - a.bytes);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--sort", "size"]))).toEqual(bySize.map((x: { key: string }) => x.key));
    // --since: the corpus was written on 2026-07-01; a date after it leaves nothing, one before it everything
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--since", "2026-08-01"]))).toEqual([]);
    expect(keysOf(await cli(["ls", "--state-dir", state, "--json", "--since", "2026-06-01"]))).toHaveLength(3);
    // JSON keeps its schema: the same document, fewer sessions
    const one = await cli(["ls", "--state-dir", state, "--json", "--limit", "1"]);
    expect(Object.keys(one.json())).toEqual(Object.keys(all.json()));
    expect(one.json().files).toEqual(all.json().files);
  });

  it("counts on stderr when the query cut or ordered the keys, never with --json or -q", async () => {
    const state = files("custom-session-file");
    const text = await cli(["ls", "--state-dir", state, "--channel", "cron"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("agent:main:cron:nightly-digest");
    expect(text.stdout).not.toContain("agent:main:main ");
    expect(text.stderr).toContain("showing 1 of 3 keys\n");
    const none = await cli(["ls", "--state-dir", state, "--channel", "discord"]);
    expect(none.stdout).toContain("No key matches.");
    expect(none.stderr).toContain("showing 0 of 3 keys\n");
    expect((await cli(["ls", "--state-dir", state])).stderr).not.toContain("showing");
    expect((await cli(["ls", "--state-dir", state, "--limit", "1", "-q"])).stderr).toBe("");
    expect((await cli(["ls", "--state-dir", state, "--limit", "1", "--json"])).stderr).toBe("");
  });

  it("counts resets as timeline does, in both eras (a SQLite reset stays inside its window)", async () => {
    const chain = await cli(["ls", "--state-dir", files("reset-chain"), "--json", "--has", "resets"]);
    expect(keysOf(chain)).toEqual(["agent:main:telegram:direct:424242"]);
    const { stateDir } = copyState("sqlite", "sqlite-reset"); // main: 3 resets, telegram: 1, neither has an archive
    const byResets = await cli(["ls", "--state-dir", stateDir, "--json", "--sort", "resets", "--has", "resets"]);
    expect(keysOf(byResets)).toEqual(["agent:main:main", "agent:main:telegram:direct:5550002"]);
    expect(keysOf(await cli(["ls", "--state-dir", stateDir, "--json", "--has", "archives"]))).toEqual([]);
  });

  it("refuses a bad value or a query beside a key (exit 2, one line)", async () => {
    const state = files("reset-chain");
    for (const argv of [
      ["--has", "resets,bogus"],
      ["--sort", "oldest"],
      ["--limit", "0"],
      ["--since", "yesterday"],
      ["agent:main:main", "--limit", "2"],
    ]) {
      const r = await cli(["ls", "--state-dir", state, ...argv]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr.trim().split("\n")[0], argv.join(" ")).toMatch(/^openclaw-sessions: /);
      expect(r.stdout).toBe("");
    }
  });
});
