/**
 * What no run can use again leaves the index (StoreCache.#pruneFacts, IndexDb.pruneFacts): once a
 * day, a run that listed a sessions dir whole drops the facts of its files that are gone and those
 * derived from content a file no longer has. Real corpus stores in temp dirs, real SQLite.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { runTimeline } from "../../../src/commands/timeline.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState } from "../../helpers/corpus.js";
import { factsIn, indexFileOf, pastRacyWindow } from "../../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../../helpers/temp.js";

/** The store-wide timeline as JSON text, with the index or without. */
async function timeline(stateDir: string, env: NodeJS.ProcessEnv, index = true): Promise<string> {
  const place = { env, cwd: "/" };
  const session = openStoreSession(place);
  try {
    return JSON.stringify(await runTimeline({ stateDir, ...(index ? {} : { index: false }) }, { ...place, session }));
  } finally {
    session.close();
  }
}

/** The index's last prune (or its making) put `days` back. */
function pruneDue(index: string, days: number): void {
  const db = new DatabaseSync(index);
  try {
    const at = String(Date.now() - days * 24 * 60 * 60 * 1000);
    db.prepare("UPDATE meta SET value = ? WHERE key IN ('builtAt', 'factsPrunedAt')").run(at);
  } finally {
    db.close();
  }
}

describe("the index's facts a day on", () => {
  it("drop a file no longer there and what a file no longer holds, and answer as --no-index does", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const sessions = path.join(stateDir, "agents", "main", "sessions");
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: tempDir("ocs-prune-cache-"), TZ: "UTC" };
    const index = indexFileOf(stateDir, env.XDG_CACHE_HOME);
    await pastRacyWindow();
    await timeline(stateDir, env);
    const names = fs.readdirSync(sessions).sort();
    const [archive, later] = names.filter((n) => n.includes(".jsonl.reset.")).map((n) => path.join(sessions, n));
    const active = path.join(sessions, names.find((n) => n.endsWith(".jsonl"))!);
    const of = (file: string) => factsIn(index).filter((f) => f.source.endsWith(`:${file}`));
    expect(of(archive!).length).toBeGreaterThan(0);
    const before = of(active);
    expect(before.length).toBeGreaterThan(0);
    const append = (id: string) =>
      fs.appendFileSync(
        active,
        `${JSON.stringify({ type: "custom", customType: "x", id, parentId: null, timestamp: "2026-07-02T00:00:00.000Z" })}\n`,
      );

    // OpenClaw's retention removes an archive; a line is added to another file (its facts then of old content).
    fs.rmSync(archive!);
    append("pruned-1");
    await pastRacyWindow();
    // Within a day of the index's making nothing is dropped.
    expect(await timeline(stateDir, env)).toBe(await timeline(stateDir, env, false));
    expect(of(archive!).length).toBeGreaterThan(0);
    expect(new Set(of(active).map((f) => f.identity)).size).toBe(2);

    // A day on, the next run that lists the dir (another archive removed: the answer is derived) drops them.
    pruneDue(index, 2);
    fs.rmSync(later!);
    await pastRacyWindow();
    expect(await timeline(stateDir, env)).toBe(await timeline(stateDir, env, false));
    expect(of(archive!)).toEqual([]);
    expect(of(later!)).toEqual([]);
    // Only what was derived from the file as it is now stays.
    const identities = new Set(of(active).map((f) => f.identity));
    expect(identities.size).toBe(1);
    expect([...identities][0]).not.toBe(before[0]!.identity);
    // The answer is kept, and given again from what stays.
    expect(await timeline(stateDir, env)).toBe(await timeline(stateDir, env, false));
  });
});
