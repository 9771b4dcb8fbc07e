/**
 * 9.6's history scope after a reset that keeps a tail (`reset` row with `firstKeptEntryId`, as an
 * idle or daily rollover writes it): chat.history lists only the user and assistant messages of
 * the kept tail, so a kept tool result must not shift the `seq` of everything after it. Built on a
 * real SQLite store: a copy of the sqlite-reset corpus with such a turn appended to the live window.
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { damagedCopy, run } from "../helpers/sqlite-writer.js";

const WINDOW = "de266e05-d988-44b0-af66-9bf5707e7848";
const LAST = "4d134d2b-1050-4902-8268-d6a833c05def";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function withKeptTail() {
  const at = (s: number) => `2026-11-30T02:00:${String(s).padStart(2, "0")}.000Z`;
  const msg = (id: string, parentId: string, s: number, message: Record<string, unknown>) => ({
    type: "message",
    id,
    parentId,
    timestamp: at(s),
    message: { ...message, timestamp: Date.parse(at(s)) },
  });
  const events = [
    msg("k-user", LAST, 1, { role: "user", content: [{ type: "text", text: "what is in the repo?" }] }),
    msg("k-call", "k-user", 2, {
      role: "assistant",
      content: [{ type: "toolCall", id: "call-1", name: "ls", arguments: { path: "." } }],
      stopReason: "toolUse",
    }),
    msg("k-result", "k-call", 3, {
      role: "toolResult",
      toolCallId: "call-1",
      toolName: "ls",
      content: [{ type: "text", text: "README.md src" }],
    }),
    msg("k-answer", "k-result", 4, { role: "assistant", content: [{ type: "text", text: "A README and src." }], stopReason: "stop" }),
    { type: "reset", id: "k-reset", parentId: "k-answer", timestamp: at(5), reason: "idle", firstKeptEntryId: "k-user" },
    msg("n-user", "k-reset", 6, { role: "user", content: [{ type: "text", text: "and after the reset?" }] }),
    msg("n-answer", "n-user", 7, { role: "assistant", content: [{ type: "text", text: "Still here." }], stopReason: "stop" }),
  ];
  const copy = damagedCopy("sqlite-reset", (db) => {
    const max = Number((db.prepare("SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?").get(WINDOW) as { m: number }).m);
    events.forEach((e, i) => {
      const seq = max + 1 + i;
      run(
        db,
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
        WINDOW,
        seq,
        JSON.stringify(e),
        Date.parse(e.timestamp),
      );
      run(
        db,
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        WINDOW,
        e.id,
        seq,
        e.type,
        e.parentId,
        Date.parse(e.timestamp),
      );
    });
  });
  cleanups.push(copy.cleanup);
  return copy;
}

describe("9.6 reset with a kept tail", () => {
  it("default history keeps only the tail's user and assistant messages; seq counts what is shown", async () => {
    const { stateDir } = withKeptTail();
    const r = await cli(["history", "agent:main:main", "--json", "--state-dir", stateDir]);
    expect(r.code, r.stderr).toBe(0);
    const items = r.json().messages as Array<{ id: string; seq: number; kind?: string; role: string }>;
    expect(items.map((m) => [m.seq, m.id])).toEqual([
      [1, "k-user"],
      [2, "k-call"],
      [3, "k-answer"],
      [4, "k-reset"],
      [5, "n-user"],
      [6, "n-answer"],
    ]);
    expect(items.some((m) => m.role === "toolResult")).toBe(false);
    expect(fs.existsSync(stateDir)).toBe(true);
  });
});
