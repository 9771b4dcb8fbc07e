/**
 * Event lookups for `verify-import`: a window's `transcript_events` rows (json and zstd, decoded
 * and hashed in canonical form) joined with `transcript_event_identities`, and an agent-wide
 * event-id index for events that sit in another window (a rewind copies them).
 */
import { contentHash, type DbEvent, type EventLookup } from "../../core/import-match.js";
import type { SqliteDb } from "./driver.js";
import { hasTable, windowEventLines } from "./read.js";
import { isRecord, stringOrNull } from "../../core/coerce.js";

interface WindowEvents {
  byId: Map<string, DbEvent>;
  byHash: Map<string, DbEvent>;
}

function parse(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class SqliteEventIndex {
  private readonly windows = new Map<string, WindowEvents>();
  private idIndex: Map<string, string[]> | null = null;
  private readonly hasIdentities: boolean;

  constructor(private readonly db: SqliteDb) {
    this.hasIdentities = hasTable(db, "transcript_event_identities");
  }

  private window(sessionId: string): WindowEvents {
    let w = this.windows.get(sessionId);
    if (w) return w;
    const identities = new Set<string>();
    if (this.hasIdentities) {
      for (const r of this.db.all("SELECT event_id FROM transcript_event_identities WHERE session_id = ?", sessionId))
        identities.add(String(r.event_id));
    }
    w = { byId: new Map(), byHash: new Map() };
    for (const line of windowEventLines(this.db, sessionId)) {
      const v = parse(line.text);
      const id = isRecord(v) ? stringOrNull(v.id) : null;
      const ev: DbEvent = {
        sessionId,
        seq: line.seq ?? -1,
        id,
        hash: contentHash(v ?? line.text),
        hasIdentity: id !== null && identities.has(id),
      };
      if (id !== null && !w.byId.has(id)) w.byId.set(id, ev);
      if (!w.byHash.has(ev.hash)) w.byHash.set(ev.hash, ev);
    }
    this.windows.set(sessionId, w);
    return w;
  }

  /** Windows holding an event id (identities first, then a scan of the event rows' ids). */
  private windowsOf(id: string): string[] {
    if (!this.idIndex) {
      this.idIndex = new Map();
      const add = (eventId: string, sessionId: string) => {
        const list = this.idIndex!.get(eventId);
        if (!list) this.idIndex!.set(eventId, [sessionId]);
        else if (!list.includes(sessionId)) list.push(sessionId);
      };
      if (this.hasIdentities)
        for (const [sessionId, eventId] of this.db.iterate("SELECT session_id, event_id FROM transcript_event_identities"))
          add(String(eventId), String(sessionId));
      // Rows whose identity row is gone still count as present (reported as no-identity).
      if (hasTable(this.db, "transcript_events")) {
        for (const [sessionId, eventId] of this.db.iterate(
          "SELECT session_id, json_extract(event_json, '$.id') FROM transcript_events WHERE event_json IS NOT NULL",
        )) {
          if (typeof eventId === "string") add(eventId, String(sessionId));
        }
      }
    }
    return this.idIndex.get(id) ?? [];
  }

  sessionIds(): Set<string> {
    if (!hasTable(this.db, "session_windows")) return new Set();
    return new Set(this.db.all("SELECT session_id FROM session_windows").map((r) => String(r.session_id)));
  }

  lookup(sessionId: string | null): EventLookup {
    const own = sessionId ? this.window(sessionId) : { byId: new Map<string, DbEvent>(), byHash: new Map<string, DbEvent>() };
    return {
      inWindow: (id) => own.byId.get(id),
      inWindowByHash: (hash) => own.byHash.get(hash),
      elsewhere: (id) => {
        for (const other of this.windowsOf(id)) {
          if (other === sessionId) continue;
          const ev = this.window(other).byId.get(id);
          if (ev) return ev;
        }
        return undefined;
      },
    };
  }
}
