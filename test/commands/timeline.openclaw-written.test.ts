/**
 * `timeline <key>` on the stores OpenClaw's own code wrote (fixtures/check-clean/, random plans;
 * each manifest holds every step and what OpenClaw answered), by the rules `npm run conformance`
 * applies to fresh random stores (conformance/lib/timeline-plan.mjs): the sessions OpenClaw gave a
 * key are its segments in order, each ended for a reason that fits what OpenClaw did, every
 * compaction OpenClaw ran is an event, the current segment is the entry's sessionId, and
 * `compactionCountCheck` counts the entries of the current segment, none when the current
 * session's transcript is not on disk (a bare `/new` before its first message: the last segment
 * on disk is then an earlier session's).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { timelineFollowsPlan, transcriptTest } from "../../conformance/lib/timeline-plan.mjs";
import { runLs } from "../../src/commands/ls.js";
import { runTimeline } from "../../src/commands/timeline.js";
import { openclawWrittenStores } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const HOME = tempDir("ocs-timeline-written-home-");
afterAll(() => {
  fs.rmSync(HOME, { recursive: true, force: true });
});

describe("timeline <key> on stores OpenClaw wrote: its sessions, reset reasons, compactions, current segment and compactionCount", () => {
  let checked = { sessions: 0, reasons: 0, compactions: 0, withoutTranscript: 0 };
  for (const { era, name, stateDir, manifest } of openclawWrittenStores()) {
    it(`${era}/${name}`, async () => {
      const ctx = storeContext({ env: { HOME }, cwd: process.cwd() });
      const hasTranscript = transcriptTest(era, manifest.steps, path.join(stateDir, "agents", "main", "sessions"));
      for (const { sessionKey: key } of (await runLs({ stateDir }, ctx)).sessions) {
        let current = true;
        const run = async ([, k]: string[]) => {
          const t = await runTimeline({ stateDir, key: k!, agent: "main", tz: "UTC" }, ctx);
          current = t.segments.some((s) => s.current);
          return t;
        };
        const f = await timelineFollowsPlan(run, manifest.steps, key, hasTranscript, (what) => `${era}/${name}: ${what}`);
        checked = {
          sessions: checked.sessions + f.sessions,
          reasons: checked.reasons + f.reasons,
          compactions: checked.compactions + f.compactions,
          withoutTranscript: checked.withoutTranscript + (current ? 0 : 1),
        };
      }
    });
  }
  it("met sessions, reset reasons, compactions and keys whose current session has no transcript on disk", () => {
    // Each rule above was exercised, not passed for want of a case.
    expect(checked.sessions).toBeGreaterThan(0);
    expect(checked.reasons).toBeGreaterThan(0);
    expect(checked.compactions).toBeGreaterThan(0);
    expect(checked.withoutTranscript).toBeGreaterThan(0);
  });
});
