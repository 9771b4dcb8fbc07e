/**
 * `history <key>` on the stores OpenClaw's own code wrote (fixtures/check-clean/, random plans of
 * messages, `/new` and `/reset`, gateway resets, deletes, compactions and trims) equals what
 * OpenClaw's own readers returned for every key (`history.json` beside each store, recorded by
 * scripts/make-history-answers.mjs): 2026.7.1's history reader with the reset-archive fallback
 * `chat.history` allows, and 2026.9.6's real `chat.history` handler, markers included. And every
 * message the store's plan sent to a key since its last delete is in `history <key> --archived`,
 * in order, or in a file `ls` lists as belonging to no key; no key shows another's.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHistory } from "../../src/commands/history.js";
import { runLs } from "../../src/commands/ls.js";
import { openclawWrittenStores, ROOT } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const WRITTEN = path.join(ROOT, "fixtures", "check-clean");
const HOME = tempDir("ocs-history-written-home-");
afterAll(() => {
  fs.rmSync(HOME, { recursive: true, force: true });
});

type Message = { role: string; kind?: string; text: string };

interface Answers {
  openclaw: string;
  keys: Record<string, { sessionId: string | null; messages: Message[] }>;
}

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

/** A sent text as a transcript holds it: a worded `/new` or `/reset` keeps only its words. */
const asStored = (text: string) => text.replace(/^\/(new|reset)\s+/, "").trim();

describe("history <key> --archived on stores OpenClaw wrote: every message sent to the key, or in a file no key owns", () => {
  for (const { era, name, stateDir, manifest } of openclawWrittenStores()) {
    const { steps } = manifest;
    it(`${era}/${name}`, async () => {
      const ctx = storeContext({ env: { HOME }, cwd: process.cwd() });
      const listed = await runLs({ stateDir }, ctx);
      // What no key owns, as its bytes: a message there is reachable (`ls`, `restore --key`), not lost.
      const unowned = listed.unattributed.map((u) => fs.readFileSync(u.path, "latin1")).join("\n");
      let checked = 0;
      for (const { sessionKey: key } of listed.sessions) {
        let sent: string[] = [];
        const toOthers = new Set<string>();
        for (const s of steps) {
          if (s.key === key && s.op === "delete") sent = [];
          if (s.op !== "turn" || !s.result?.sessionId || !s.text) continue;
          if (s.key === key) sent.push(asStored(s.text));
          else toOthers.add(asStored(s.text));
        }
        const r = await runHistory({ stateDir, key, agent: "main", archived: true }, ctx);
        const shown = (r.messages as Message[]).filter((m) => m.role === "user").map((m) => m.text.trim());
        for (const text of shown) if (toOthers.has(text)) expect(sent, `${key} shows another key's message`).toContain(text);
        let at = 0;
        for (const text of sent) {
          const found = shown.indexOf(text, at);
          if (found >= 0) at = found + 1;
          else
            expect(unowned, `${key}: "${text}" is neither in its --archived history (in order) nor in a file no key owns`).toContain(
              JSON.stringify(text).slice(1, -1),
            );
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
