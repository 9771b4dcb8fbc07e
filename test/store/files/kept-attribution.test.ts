/**
 * Attribution kept across runs: reused only while its inputs are equal and each header it asked
 * for holds the same facts; a header proven by its file's identity is not read again.
 */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { attribute, type KeyInput } from "../../../src/core/attribution.js";
import type { ClassifiedFile, TranscriptHeader } from "../../../src/core/model.js";
import { attributeKept, type KeptDerivations, MAX_KEPT_CANDIDATES } from "../../../src/store/files/kept-attribution.js";
import { classifiedByName } from "../../helpers/classified.js";

const DIR = "/s";
const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const C = "33333333-3333-4333-8333-333333333333";

const file = (name: string): ClassifiedFile => classifiedByName(DIR, name);
const key = (sessionKey: string, sessionId: string, entry: Record<string, unknown> = {}): KeyInput => ({
  sessionKey,
  sessionId,
  entry: { sessionId, ...entry },
  sessionFileBasename: null,
  activePaths: [`${DIR}/${sessionId}.jsonl`],
});
const header = (id: string, timestamp: string, parentSession: string | null = null): TranscriptHeader => ({
  id,
  timestamp,
  version: 3,
  parentSession,
  cwd: null,
});

/**
 * A store as attribution sees it: keys, files, each file's header and identity. k's current
 * transcript A started when B's reset archive was stamped (B follows k by timing), and C's
 * archive names B as its parent (C follows k through B): only headers link them.
 */
function store() {
  const archiveB = `${B}.jsonl.reset.2026-07-01T09-00-00.000Z`;
  const archiveC = `${C}.jsonl.deleted.2026-06-30T09-00-00.000Z`;
  const headers = new Map<string, TranscriptHeader | null>([
    [`${DIR}/${A}.jsonl`, header(A, "2026-07-01T09:00:00.000Z")],
    [`${DIR}/${archiveB}`, header(B, "2026-06-30T09:00:00.000Z", C)],
    [`${DIR}/${archiveC}`, header(C, "2026-06-29T09:00:00.000Z")],
  ]);
  const identities = new Map([...headers.keys()].map((p) => [p, `id-${p}-1`]));
  const reads: string[] = [];
  return {
    keys: [key("k", A)],
    files: [file(`${A}.jsonl`), file(archiveB), file(archiveC)],
    headers,
    identities,
    archiveB,
    reads,
    headerOf: (p: string) => {
      reads.push(p);
      return headers.get(p) ?? null;
    },
  };
}

/** An index for one store, on plain maps: what it keeps, and each file's identity this run. */
function index(identities: Map<string, string>, opts: { settled?: boolean; usable?: boolean } = {}) {
  const values = new Map<string, string>();
  const kept: KeptDerivations = {
    usable: () => opts.usable ?? true,
    recall: (what, digest) => values.get(`${what}\n${digest}`),
    keep: (what, digest, value) => void values.set(`${what}\n${digest}`, value),
    digest: (parts) => {
      const hash = crypto.createHash("sha256");
      for (const part of parts) hash.update(`${part.length}\n${part}`);
      return hash.digest("hex");
    },
    settledIdentity: (p) => (opts.settled === false ? null : (identities.get(p) ?? null)),
    identity: (p) => identities.get(p) ?? null,
  };
  return { kept, values };
}

const plain = (a: { byFile: Map<string, unknown>; lineage: Map<string, unknown> }) => ({
  byFile: [...a.byFile],
  lineage: [...a.lineage],
});

describe("attributeKept", () => {
  it("reuses a kept attribution without reading a header whose file kept its identity", () => {
    const s = store();
    const { kept, values } = index(s.identities);
    const first = attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect(first.byFile.get(`${DIR}/${s.archiveB}`)?.map((o) => o.key)).toEqual(["k"]);
    expect(plain(first)).toEqual(plain(attribute(s.keys, s.files, s.headerOf)));
    expect(values.size).toBe(1);

    s.reads.length = 0;
    const again = attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect(plain(again)).toEqual(plain(first));
    expect(again.headerIds).toEqual(first.headerIds);
    expect(s.reads).toEqual([]);
  });

  it("after an append (a new identity, the same header) reads that header alone and reuses", () => {
    const s = store();
    const { kept } = index(s.identities);
    const first = attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    s.identities.set(`${DIR}/${A}.jsonl`, "grown");
    s.reads.length = 0;
    const again = attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect(s.reads).toEqual([`${DIR}/${A}.jsonl`]);
    expect(plain(again)).toEqual(plain(first));
  });

  it("derives again when a header it read now says otherwise, and answers as attribute does", () => {
    const s = store();
    const { kept } = index(s.identities);
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    // B's archive rewritten: it no longer names C as its parent, so C's archive belongs to no key.
    s.headers.set(`${DIR}/${s.archiveB}`, header(B, "2026-06-30T09:00:00.000Z"));
    s.identities.set(`${DIR}/${s.archiveB}`, "rewritten");
    const again = attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect(plain(again)).toEqual(plain(attribute(s.keys, s.files, s.headerOf)));
    expect(again.byFile.has(`${DIR}/${C}.jsonl.deleted.2026-06-30T09-00-00.000Z`)).toBe(false);
  });

  it("derives again when what it read of the keys or files changed, not for what it does not read", () => {
    const s = store();
    const { kept, values } = index(s.identities);
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    // An entry's updatedAt, a file's size and mtime: attribution reads none of them.
    const touched = [{ ...s.keys[0]!, entry: { ...s.keys[0]!.entry, updatedAt: 5 } }];
    s.reads.length = 0;
    attributeKept(
      touched,
      s.files.map((f) => ({ ...f, bytes: 99, mtimeMs: 7 })),
      s.headerOf,
      () => true,
      kept,
    );
    expect(s.reads).toEqual([]);
    expect(values.size).toBe(1);
    // A lineage field it does read: derived again (and kept under the new inputs).
    const relinked = [{ ...s.keys[0]!, entry: { ...s.keys[0]!.entry, previousSessionId: C } }];
    const again = attributeKept(relinked, s.files, s.headerOf, () => true, kept);
    expect(plain(again)).toEqual(plain(attribute(relinked, s.files, s.headerOf)));
    expect(s.reads.length).toBeGreaterThan(0);
    expect(values.size).toBe(2);
  });

  it("keeps nothing when a header it asked for could not be read", () => {
    const s = store();
    const { kept, values } = index(s.identities);
    attributeKept(s.keys, s.files, s.headerOf, (p) => p !== `${DIR}/${s.archiveB}`, kept);
    expect(values.size).toBe(0);
  });

  it("a header read from a file that was not settled is read again next time, and a damaged kept value is derived again", () => {
    const s = store();
    const { kept, values } = index(s.identities, { settled: false });
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    s.reads.length = 0;
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect([...s.reads].sort()).toEqual([...s.headers.keys()].sort());

    const fresh = plain(attribute(s.keys, s.files, s.headerOf));
    const [k] = values.keys();
    const good = JSON.parse(values.get(k!)!);
    // Damaged: not JSON, places that name no file or key, members of another kind.
    const damaged = [
      "{not json",
      "null",
      JSON.stringify({ ...good, byFile: [[99, [[0, []]]]] }),
      JSON.stringify({ ...good, byFile: [[0, [[7, []]]]] }),
      JSON.stringify({ ...good, byFile: [[0, [[0, "evidence"]]]] }),
      JSON.stringify({ ...good, headers: [[0, null, "facts"]] }),
      JSON.stringify({ ...good, lineage: ["ids"] }),
    ];
    for (const text of damaged) {
      values.set(k!, text);
      expect(plain(attributeKept(s.keys, s.files, s.headerOf, () => true, kept)), text).toEqual(fresh);
    }
  });

  it("keeps it again, with the new identities, once an eighth of its headers are proven only by a read", () => {
    const s = store();
    const { kept, values } = index(s.identities);
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    const [stored] = values.values();
    s.identities.set(`${DIR}/${A}.jsonl`, "grown");
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    const [rekept] = values.values();
    expect(rekept).not.toBe(stored);
    expect(rekept).toContain('"grown"');
    s.reads.length = 0;
    attributeKept(s.keys, s.files, s.headerOf, () => true, kept);
    expect(s.reads).toEqual([]);
  });

  it("asks the index nothing when no file needs an owner (an empty store, or only active transcripts)", () => {
    const s = store();
    const asked: string[] = [];
    const { kept } = index(s.identities);
    const spy: KeptDerivations = {
      ...kept,
      digest: (parts) => (asked.push("digest"), kept.digest(parts)),
      recall: (what, digest) => (asked.push("recall"), kept.recall(what, digest)),
    };
    expect(plain(attributeKept([], [], s.headerOf, () => true, spy))).toEqual({ byFile: [], lineage: [] });
    attributeKept(s.keys, s.files.slice(0, 1), s.headerOf, () => true, spy);
    expect(asked).toEqual([]);
    attributeKept(s.keys, s.files, s.headerOf, () => true, spy);
    expect(asked).toEqual(["digest", "recall"]);
    // An index's first run (it holds no fact yet): no digest, nothing kept.
    const first = index(s.identities, { usable: false });
    attributeKept(s.keys, s.files, s.headerOf, () => true, { ...first.kept, digest: () => expect.fail("digested") });
    expect(first.values.size).toBe(0);
  });

  it("a store with more files to attribute than it keeps for asks the index nothing (its value would cost more memory than it saves)", () => {
    const s = store();
    const { kept, values } = index(s.identities);
    const many = Array.from({ length: MAX_KEPT_CANDIDATES }, (_, i) =>
      file(`${String(i).padStart(8, "0")}-0000-4000-8000-000000000000.jsonl.deleted.2026-06-01T09-00-00.000Z`),
    );
    attributeKept(s.keys, [...s.files, ...many.slice(0, MAX_KEPT_CANDIDATES - 2)], s.headerOf, () => true, kept);
    expect(values.size).toBe(1);
    const over = [...s.files, ...many];
    attributeKept(s.keys, over, s.headerOf, () => true, { ...kept, digest: () => expect.fail("digested") });
    expect(values.size).toBe(1);
  });

  it("without an index, is attribute", () => {
    const s = store();
    expect(plain(attributeKept(s.keys, s.files, s.headerOf, () => true, undefined))).toEqual(plain(attribute(s.keys, s.files, s.headerOf)));
  });
});
