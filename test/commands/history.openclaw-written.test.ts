/**
 * `history <key>` on the stores OpenClaw's own code wrote (fixtures/check-clean/, random plans of
 * messages, `/new` and `/reset`, gateway resets, deletes, compactions and trims) equals what
 * OpenClaw's own readers returned for every key (`history.json` beside each store, recorded by
 * scripts/make-history-answers.mjs): 2026.7.1's history reader with the reset-archive fallback
 * `chat.history` allows, and 2026.9.6's real `chat.history` handler, markers included.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHistory } from "../../src/commands/history.js";
import { ROOT } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const WRITTEN = path.join(ROOT, "fixtures", "check-clean");
const HOME = tempDir("ocs-history-written-home-");
afterAll(() => {
  fs.rmSync(HOME, { recursive: true, force: true });
});

interface Answers {
  openclaw: string;
  keys: Record<string, { sessionId: string | null; messages: Array<{ role: string; kind?: string; text: string }> }>;
}

type Message = { role: string; kind?: string; text: string };

/**
 * 7.1's reader joins a message's text blocks without a separator and returns every role; the
 * conversation is its user, assistant and tool-result texts (conformance/checks/restore-files.mjs
 * compares them so). 9.6's chat.history is compared whole: markers and their kinds too.
 */
const projections: Record<string, (ms: Message[]) => string[]> = {
  files: (ms) => ms.filter((m) => ["user", "assistant", "toolResult"].includes(m.role)).map((m) => `${m.role}:${m.text.trim()}`),
  sqlite: (ms) => ms.map((m) => `${m.role}${m.kind ? `/${m.kind}` : ""}:${m.text}`),
};

for (const era of ["files", "sqlite"] as const) {
  describe(`history <key> on ${era} stores OpenClaw wrote, beside OpenClaw's own reader`, () => {
    const names = fs.readdirSync(path.join(WRITTEN, era)).filter((n) => fs.existsSync(path.join(WRITTEN, era, n, "history.json")));
    it("has stores with recorded answers", () => {
      expect(names.length).toBeGreaterThanOrEqual(3);
    });
    for (const name of names.sort()) {
      const answers = JSON.parse(fs.readFileSync(path.join(WRITTEN, era, name, "history.json"), "utf8")) as Answers;
      for (const [key, want] of Object.entries(answers.keys)) {
        it(`${name} ${key}`, async () => {
          const r = await runHistory(
            { stateDir: path.join(WRITTEN, era, name, "state"), key, agent: "main" },
            storeContext({ env: { HOME }, cwd: process.cwd() }),
          );
          expect(r.source.sessionId).toBe(want.sessionId);
          const project = projections[era]!;
          expect(project(r.messages as Message[])).toEqual(project(want.messages));
        });
      }
    }
  });
}
