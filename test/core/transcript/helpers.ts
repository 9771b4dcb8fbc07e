import type { EntryRecord } from "../../../src/core/transcript/parse.js";
import { parseLine } from "../../../src/core/transcript/parse.js";
import { linesFromEvents } from "../../../src/core/transcript/parse.js";

/** Entry records for rows (line numbers start at 2, as after a header). */
export function records(rows: Record<string, unknown>[]): EntryRecord[] {
  return rows.map((r, i) => {
    const rec = parseLine({ lineNo: i + 2, text: JSON.stringify(r), bytes: 0, offset: 0 });
    if (rec.kind !== "entry") throw new Error("not an entry");
    return rec;
  });
}

export const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };

let clock = 0;
const ts = () => new Date(Date.UTC(2026, 0, 1) + ++clock * 1000).toISOString();

export const msg = (
  id: string,
  parentId: string | null | undefined,
  role: string,
  content: unknown,
  extra: Record<string, unknown> = {},
) => ({
  type: "message",
  id,
  ...(parentId === undefined ? {} : { parentId }),
  timestamp: ts(),
  message: { role, content, ...extra },
});

export const row = (type: string, id: string, parentId: string | null, extra: Record<string, unknown> = {}) => ({
  type,
  id,
  parentId,
  timestamp: ts(),
  ...extra,
});

export const open = (rows: unknown[]) => linesFromEvents([header, ...rows]);
