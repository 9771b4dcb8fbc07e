/**
 * `timeline <key>` on the stores OpenClaw's own code wrote (fixtures/check-clean/, random plans;
 * `manifest.json` holds each step and what OpenClaw answered): every compaction OpenClaw ran on a
 * key's session is a compaction event of the key's timeline wherever that session is a segment of
 * it, the current segment is the entry's sessionId, and `compactionCountCheck` counts the entries
 * of the current segment, none when the current session has no transcript on disk yet (a bare
 * `/new` before its first message: the last segment on disk is then an earlier session's).
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { runLs } from "../../src/commands/ls.js";
import { runTimeline } from "../../src/commands/timeline.js";
import { openclawWrittenStores } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const HOME = tempDir("ocs-timeline-written-home-");
afterAll(() => {
  fs.rmSync(HOME, { recursive: true, force: true });
});

describe("timeline <key> on stores OpenClaw wrote: its compactions, its current segment and compactionCount", () => {
  let sessionsWithoutTranscript = 0;
  for (const { era, name, stateDir, manifest } of openclawWrittenStores()) {
    const { steps } = manifest;
    it(`${era}/${name}`, async () => {
      const ctx = storeContext({ env: { HOME }, cwd: process.cwd() });
      const listed = await runLs({ stateDir }, ctx);
      for (const { sessionKey: key } of listed.sessions) {
        const r = await runTimeline({ stateDir, key, agent: "main", tz: "UTC" }, ctx);
        // Compactions OpenClaw ran on each of the key's sessions since its last delete.
        const ran = new Map<string, number>();
        for (const s of steps) {
          if (s.key !== key) continue;
          if (s.op === "delete") ran.clear();
          const sid = s.result?.sessionId;
          if (s.op === "compaction" && sid) ran.set(sid, (ran.get(sid) ?? 0) + 1);
        }
        const compactions = r.events.filter((e) => e.type === "compaction");
        for (const [sid, n] of ran) {
          if (!r.segments.some((s) => s.sessionId === sid)) continue;
          expect(compactions.filter((e) => e.sessionId === sid).length, `${key}: compactions of ${sid}`).toBeGreaterThanOrEqual(n);
        }
        const current = r.segments.filter((s) => s.current);
        expect(current.length, `${key}: current segments`).toBeLessThanOrEqual(1);
        if (current[0]) expect(current[0].sessionId, `${key}: the current segment's session`).toBe(r.sessionId);
        else sessionsWithoutTranscript += 1;
        const inCurrent = current[0] ? compactions.filter((e) => e.segment === r.segments.indexOf(current[0]!)).length : 0;
        expect(r.compactionCountCheck.inCurrentSegment, `${key}: compaction entries of the current segment`).toBe(inCurrent);
        expect(r.compactionCountCheck.inAllSegments).toBe(r.segments.reduce((n, s) => n + s.compactions, 0));
        if (r.compactionCountCheck.stored === inCurrent) expect(r.compactionCountCheck.matches, `${key}: compactionCount`).toBe(true);
      }
    });
  }
  it("met keys whose current session has no transcript yet", () => {
    // The stores hold such keys (a bare /new before its first message): the rule above was exercised.
    expect(sessionsWithoutTranscript).toBeGreaterThan(0);
  });
});
