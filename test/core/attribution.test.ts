/** Attribution on plain data: which key each transcript file belongs to, and why. */
import { describe, expect, it } from "vitest";
import { attribute, attributionInputs, headerFacts, lineageOf, type KeyInput } from "../../src/core/attribution.js";
import type { ClassifiedFile, SessionEntry, TranscriptHeader } from "../../src/core/model.js";
import { classifiedByName } from "../helpers/classified.js";

const DIR = "/s";
const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const C = "33333333-3333-4333-8333-333333333333";
const D = "44444444-4444-4444-8444-444444444444";

const file = (name: string): ClassifiedFile => classifiedByName(DIR, name);
function key(sessionKey: string, sessionId: string | null, entry: SessionEntry = {}, sessionFileBasename: string | null = null): KeyInput {
  return {
    sessionKey,
    sessionId,
    entry: { sessionId, ...entry },
    sessionFileBasename,
    activePaths: sessionId ? [`${DIR}/${sessionId}.jsonl`] : [],
  };
}
function header(id: string | null, timestamp: string | null = null, parentSession: string | null = null): TranscriptHeader {
  return { id, timestamp, version: 3, parentSession, cwd: null };
}
/** A header lookup over a table, recording which paths were asked for. */
function headers(table: Record<string, TranscriptHeader>) {
  const asked: string[] = [];
  const lookup = (p: string) => {
    asked.push(p);
    return table[p.slice(DIR.length + 1)] ?? null;
  };
  return { lookup, asked };
}
const kinds = (a: ReturnType<typeof attribute>, name: string) =>
  Object.fromEntries(
    (a.byFile.get(`${DIR}/${name}`) ?? []).map(({ key, evidence }) => [key, evidence.map((e) => `${e.kind}/${e.confidence}`)]),
  );

describe("lineageOf", () => {
  it("lists usageFamilySessionIds, compaction checkpoints and previousSessionId with their fields; ignores junk", () => {
    const entry: SessionEntry = {
      usageFamilySessionIds: [A, "", 7],
      compactionCheckpoints: [{ preCompaction: { sessionId: B }, postCompaction: { sessionId: "" } }, null, "x"],
      previousSessionId: C,
    };
    expect(lineageOf(entry)).toEqual([
      { id: A, kind: "usage-family", field: "usageFamilySessionIds" },
      { id: B, kind: "compaction-checkpoint", field: "compactionCheckpoints[0].preCompaction.sessionId" },
      { id: C, kind: "previous-session-id", field: "previousSessionId" },
    ]);
    expect(lineageOf({ usageFamilySessionIds: "nope", compactionCheckpoints: {} })).toEqual([]);
  });
});

describe("attribute", () => {
  it("an archive named by the current sessionId is the key's, certainly; the active file is never an archive", () => {
    const archive = `${A}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const { lookup, asked } = headers({});
    const a = attribute([key("agent:main:main", A)], [file(`${A}.jsonl`), file(archive)], lookup);
    expect(kinds(a, archive)).toEqual({ "agent:main:main": ["current-session-id/certain"] });
    expect(a.byFile.has(`${DIR}/${A}.jsonl`)).toBe(false);
    // The name decided: no header was read for it.
    expect(asked).not.toContain(`${DIR}/${archive}`);
    expect(a.lineage.get("agent:main:main")).toEqual([A]);
  });

  it("ids the entry records (lineage) own their archives, and come before the current id in the lineage", () => {
    const archive = `${B}.jsonl.deleted.2026-07-01T09-00-00.000Z`;
    const a = attribute([key("k", A, { previousSessionId: B })], [file(archive)], headers({}).lookup);
    expect(kinds(a, archive)).toEqual({ k: ["previous-session-id/certain"] });
    expect(a.lineage.get("k")).toEqual([B, A]);
  });

  it("a header id that is another key's sessionId links the file to that key (strong)", () => {
    const archive = `${C}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const a = attribute([key("k1", A), key("k2", B)], [file(archive)], headers({ [archive]: header(B) }).lookup);
    expect(kinds(a, archive)).toEqual({ k2: ["header-id/strong"] });
  });

  it("an archive of a custom sessionFile name is the key's: certain when the header id matches, strong otherwise", () => {
    const now = "custom-name.jsonl.reset.2026-07-01T09-00-00.000Z";
    const older = "custom-name.jsonl.reset.2026-06-01T09-00-00.000Z";
    const a = attribute(
      [key("k", A, {}, "custom-name.jsonl")],
      [file(now), file(older)],
      headers({ [now]: header(A), [older]: header(D) }).lookup,
    );
    // The header id is the key's sessionId too: that links it on its own as well.
    expect(kinds(a, now)).toEqual({ k: ["header-id/strong", "session-file-name/certain"] });
    expect(kinds(a, older)).toEqual({ k: ["session-file-name/strong"] });
    expect(a.byFile.get(`${DIR}/${older}`)!.find((o) => o.key === "k")!.evidence[0]!.detail).toContain(
      `header id ${D}: an earlier generation`,
    );
  });

  it("a header's parentSession (an id or a path) names the key the file continues", () => {
    const byId = `${C}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const byPath = `${D}.jsonl.reset.2026-07-02T09-00-00.000Z`;
    const a = attribute(
      [key("k", A)],
      [file(byId), file(byPath)],
      headers({ [byId]: header(C, null, A), [byPath]: header(D, null, `/elsewhere/sessions/${A}.jsonl`) }).lookup,
    );
    expect(kinds(a, byId)).toEqual({ k: ["header-parent-session/strong"] });
    expect(kinds(a, byPath)).toEqual({ k: ["header-parent-session/strong"] });
    // Each attached id joins the key's lineage.
    expect(a.lineage.get("k")).toEqual(expect.arrayContaining([C, D, A]));
  });

  it("a reset archive is followed by the key whose oldest file starts at the archive's instant (strong), within 2 s (weak)", () => {
    const exact = `${C}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const a1 = attribute(
      [key("k", A)],
      [file(`${A}.jsonl`), file(exact)],
      headers({ [`${A}.jsonl`]: header(A, "2026-07-01T09:00:00.000Z") }).lookup,
    );
    expect(kinds(a1, exact)).toEqual({ k: ["reset-successor/strong"] });

    const a2 = attribute(
      [key("k", A)],
      [file(`${A}.jsonl`), file(exact)],
      headers({ [`${A}.jsonl`]: header(A, "2026-07-01T09:00:01.500Z") }).lookup,
    );
    expect(kinds(a2, exact)).toEqual({ k: ["reset-successor/weak"] });

    const a3 = attribute(
      [key("k", A)],
      [file(`${A}.jsonl`), file(exact)],
      headers({ [`${A}.jsonl`]: header(A, "2026-07-01T09:00:02.500Z") }).lookup,
    );
    expect(a3.byFile.has(`${DIR}/${exact}`)).toBe(false);
  });

  it("a chain of resets attaches link by link, oldest last", () => {
    // k's live file started when C was archived; C's header started when D was archived.
    const c = `${C}.jsonl.reset.2026-07-02T09-00-00.000Z`;
    const d = `${D}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const a = attribute(
      [key("k", A)],
      [file(`${A}.jsonl`), file(c), file(d)],
      headers({
        [`${A}.jsonl`]: header(A, "2026-07-02T09:00:00.000Z"),
        [c]: header(C, "2026-07-01T09:00:00.000Z"),
        [d]: header(D, "2026-06-30T09:00:00.000Z"),
      }).lookup,
    );
    expect(kinds(a, c)).toEqual({ k: ["reset-successor/strong"] });
    expect(kinds(a, d)).toEqual({ k: ["reset-successor/strong"] });
  });

  it("a file nothing names stays unattributed, and non-transcript kinds are never candidates", () => {
    const orphan = `${C}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const a = attribute(
      [key("k", A)],
      [file(orphan), file("sessions.json"), file(`${A}.jsonl.lock`)],
      headers({ [orphan]: header(C) }).lookup,
    );
    expect([...a.byFile.keys()]).toEqual([]);
  });

  it("a file two keys can claim keeps both owners with their evidence", () => {
    const shared = `${C}.jsonl.reset.2026-07-01T09-00-00.000Z`;
    const a = attribute(
      [key("k1", A, { usageFamilySessionIds: [C] }), key("k2", B, { previousSessionId: C })],
      [file(shared)],
      headers({}).lookup,
    );
    expect(kinds(a, shared)).toEqual({ k1: ["usage-family/certain"], k2: ["previous-session-id/certain"] });
  });
});

describe("attributionInputs", () => {
  /** A random store: keys with lineage fields, active files and archives of a few ids, headers that chain them. */
  function randomStore(seed: number) {
    let x = seed;
    const rand = (n: number) => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x % n;
    };
    const ids = [A, B, C, D, "55555555-5555-4555-8555-555555555555", "66666666-6666-4666-8666-666666666666"];
    const pick = () => ids[rand(ids.length)]!;
    const at = (day: number) => `2026-07-0${1 + day}T09:00:00.000Z`;
    const keys = [0, 1, 2].map((i) => key(`k${i}`, ids[i]!, rand(2) ? { previousSessionId: pick() } : { usageFamilySessionIds: [pick()] }));
    const names = [
      ...new Set(Array.from({ length: 8 }, () => `${pick()}.jsonl.${rand(2) ? "reset" : "deleted"}.${at(rand(4)).replace(/:/g, "-")}`)),
    ];
    const files = [...keys.map((k) => file(`${k.sessionId}.jsonl`)), ...names.map(file)];
    const table: Record<string, TranscriptHeader> = {};
    for (const f of files) table[f.name] = header(f.sessionId, at(rand(4)), rand(3) === 0 ? pick() : null);
    return { keys, files, table };
  }
  const joined = (k: KeyInput[], f: ClassifiedFile[]) => [...attributionInputs(k, f)].join("\n");
  const facts = (table: Record<string, TranscriptHeader>) => Object.entries(table).map(([n, h]) => [n, headerFacts(h)]);

  it("holds all attribute reads: what it does not hold (sizes, times, other entry fields, header cwd) never changes an attribution", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { keys, files, table } = randomStore(seed);
      const moved = {
        keys: keys.map((k) => ({ ...k, entry: { ...k.entry, updatedAt: seed, compactionCount: 3, label: "x" } })),
        files: files.map((f) => ({ ...f, bytes: f.bytes + seed, mtimeMs: seed })),
        table: Object.fromEntries(Object.entries(table).map(([n, h]) => [n, { ...h, version: 9, cwd: "/elsewhere" }])),
      };
      expect(joined(moved.keys, moved.files)).toBe(joined(keys, files));
      expect(facts(moved.table)).toEqual(facts(table));
      const a = attribute(keys, files, headers(table).lookup);
      const b = attribute(moved.keys, moved.files, headers(moved.table).lookup);
      expect([...b.byFile]).toEqual([...a.byFile]);
      expect([...b.lineage]).toEqual([...a.lineage]);
    }
  });

  it("changes with each thing attribute reads of a key or a file", () => {
    const { keys, files } = randomStore(7);
    const base = joined(keys, files);
    const k0 = keys[0]!;
    const variants: Array<[KeyInput[], ClassifiedFile[]]> = [
      [[{ ...k0, sessionId: D }, ...keys.slice(1)], files],
      [[{ ...k0, entry: { ...k0.entry, previousSessionId: "77777777-7777-4777-8777-777777777777" } }, ...keys.slice(1)], files],
      [[{ ...k0, sessionFileBasename: "custom.jsonl" }, ...keys.slice(1)], files],
      [[{ ...k0, activePaths: [] }, ...keys.slice(1)], files],
      [[...keys].reverse(), files],
      [keys, [...files].reverse()],
      [keys, files.slice(1)],
      [keys, files.map((f, i) => (i === 0 ? { ...f, kind: "topic" as const } : f))],
    ];
    for (const [k, f] of variants) expect(joined(k, f)).not.toBe(base);
  });
});
