import { describe, expect, it } from "vitest";
import {
  numberSegments,
  readStretches,
  readStretchesGrowing,
  segmentNumbered,
  type StretchCheckpoint,
  type TranscriptRead,
  type TranscriptStretch,
} from "../../src/core/key-segments.js";
import { ToolError } from "../../src/core/errors.js";
import type { SessionRecord } from "../../src/core/model.js";
import type { Segment } from "../../src/core/segments.js";
import { linesFromEvents } from "../../src/core/transcript/parse.js";
import type { OpenLines } from "../../src/core/transcript/scan.js";
import { numberedLines, randomTranscript, rng } from "../helpers/random-transcript.js";

const msg = (id: string, parentId: string | null, role: string, t: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: t,
  message: { role, content: [{ type: "text", text: id }] },
});

const window = [
  { type: "session", id: "w", timestamp: "2026-07-01T10:00:00.000Z" },
  msg("a", null, "user", "2026-07-01T10:00:01.000Z"),
  msg("b", "a", "assistant", "2026-07-01T10:00:02.000Z"),
  { type: "reset", id: "r1", parentId: "b", timestamp: "2026-07-01T10:01:00.000Z", reason: "new" },
  msg("c", "r1", "user", "2026-07-01T10:01:01.000Z"),
  // A branch left behind: not on the active path, so not in any segment's first or last message.
  msg("x", "c", "assistant", "2026-07-01T10:01:30.000Z"),
  msg("d", "c", "assistant", "2026-07-01T10:02:00.000Z"),
];

describe("readStretches", () => {
  it("cuts the active path at its reset rows: each stretch with its first and last message, times and the rows around it", async () => {
    const st = await readStretches(linesFromEvents(window));
    expect(st).toHaveLength(2);
    expect(st[0]).toMatchObject({ startReset: null, messages: 2, firstMessageId: "a", lastMessageId: "b" });
    expect(st[0]!.endReset).toMatchObject({ entryId: "r1", reason: "new", lineNo: 4 });
    expect(st[1]).toMatchObject({ messages: 2, firstMessageId: "c", lastMessageId: "d", endReset: null });
    expect(st[1]!.startedAt).toBe(Date.parse("2026-07-01T10:01:00.000Z"));
    expect(st[1]!.endedAt).toBe(Date.parse("2026-07-01T10:02:00.000Z"));
  });
  it("one pass: `also` sees every line once, off-path ones too, and each path reset row is in its set by the time the row is read", async () => {
    const open = linesFromEvents(window);
    let opens = 0;
    const seen: number[] = [];
    const cutWhenRead: boolean[] = [];
    const st = await readStretches(
      () => {
        opens += 1;
        return open();
      },
      (resetLines) => (line, rec) => {
        seen.push(rec.lineNo === line.lineNo ? line.lineNo : -1);
        if (rec.kind === "entry" && rec.type === "reset") cutWhenRead.push(resetLines.has(rec.lineNo));
      },
    );
    expect(opens).toBe(1);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(cutWhenRead).toEqual([true]);
    // The branch left behind (x) is in no stretch: the same as a walk of the path.
    expect(st[1]).toMatchObject({ messages: 2, firstMessageId: "c", lastMessageId: "d" });
    expect(st).toEqual(await readStretches(open));
  });
  it("a reset row off the active path: a second pass, `also` read again and told only the path's reset rows", async () => {
    const offPath = [
      ...window.slice(0, 5),
      // A reset the path leaves: a leaf row moves the leaf back to c (a rewind).
      { type: "reset", id: "r2", parentId: "c", timestamp: "2026-07-01T10:01:10.000Z", reason: "reset" },
      { type: "leaf", id: "l1", parentId: "r2", targetId: "c", timestamp: "2026-07-01T10:01:20.000Z" },
    ];
    const open = linesFromEvents(offPath);
    let opens = 0;
    const reads: Array<{ told: ReadonlySet<number>; lines: number }> = [];
    const st = await readStretches(
      () => {
        opens += 1;
        return open();
      },
      (resetLines) => {
        const r = { told: resetLines, lines: 0 };
        reads.push(r);
        return () => void (r.lines += 1);
      },
    );
    expect(opens).toBe(2);
    expect(reads).toHaveLength(2);
    expect([...reads[1]!.told]).toEqual([4]);
    expect(reads[1]!.lines).toBe(7);
    expect(st.map((x) => [x.messages, x.firstMessageId, x.lastMessageId])).toEqual([
      [2, "a", "b"],
      [1, "c", "c"],
    ]);
  });
  it("more entries than it holds: the path is walked in a second pass (`also`, fed in the first, is not fed again), the same stretches", async () => {
    const open = linesFromEvents(window);
    let opens = 0;
    const lines: number[] = [];
    const counted = () => {
      opens += 1;
      return open();
    };
    const st = await readStretches(counted, () => (line) => void lines.push(line.lineNo), undefined, 3);
    expect(opens).toBe(2);
    expect(lines).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(st).toEqual(await readStretches(open));
  });
  it("a stretch that ends with a message the scan did not keep the id of (over 64 abandoned messages before the reset): walked, exact", async () => {
    const t = (s: number) => new Date(Date.parse("2026-07-01T10:00:00.000Z") + s * 1000).toISOString();
    const rows: unknown[] = [{ type: "session", id: "w", timestamp: t(0) }];
    for (let i = 0; i < 70; i++) rows.push(msg(`a${i}`, i === 0 ? null : `a${i - 1}`, i % 2 ? "assistant" : "user", t(i + 1)));
    // A branch of 70 messages left behind, then a reset that continues from a69.
    for (let i = 0; i < 70; i++) rows.push(msg(`b${i}`, i === 0 ? "a69" : `b${i - 1}`, "assistant", t(100 + i)));
    rows.push({ type: "reset", id: "r", parentId: "a69", timestamp: t(200), reason: "new" });
    rows.push(msg("d", "r", "user", t(201)));
    const open = linesFromEvents(rows);
    let opens = 0;
    const st = await readStretches(() => {
      opens += 1;
      return open();
    });
    expect(opens).toBe(2);
    expect(st.map((x) => [x.messages, x.firstMessageId, x.lastMessageId, x.endedAt])).toEqual([
      [70, "a0", "a69", Date.parse(t(70))],
      [1, "d", "d", Date.parse(t(201))],
    ]);
  });
  it("an empty transcript is one empty stretch", async () => {
    expect(await readStretches(linesFromEvents([]))).toEqual([
      { startReset: null, endReset: null, startedAt: null, endedAt: null, messages: 0, firstMessageId: null, lastMessageId: null },
    ]);
  });
});

const record = { sessionKey: "k", sessionId: "w", windows: [{ sessionId: "w", current: true }] } as unknown as SessionRecord;
const t = (over: Partial<Segment>): Segment =>
  ({ sessionId: "w", path: "db#w", ref: { kind: "file", path: "x" }, source: "window", archive: null, evidence: [], ...over }) as Segment;

describe("numberSegments", () => {
  it("numbers stretches oldest first; the current one is the last; a reset row's reason ends a stretch", async () => {
    const stretches = await readStretches(linesFromEvents(window));
    const segs = numberSegments(record, [t({})], [{ stretches }]);
    expect(segs.map((s) => [s.number, s.stretch, s.stretches, s.endReason, s.current])).toEqual([
      [1, 0, 2, "new", false],
      [2, 1, 2, null, true],
    ]);
  });
  it("a restored copy names the segment it copies (by its first message when the manifest does not say), and is labelled so", async () => {
    const first = await readStretches(linesFromEvents(window.slice(0, 3)));
    const restore = { runId: "r", at: 0, manifest: "m", op: "unreset" as const, role: "copy" as const };
    const reads: TranscriptRead[] = [
      { stretches: first },
      { stretches: [{ ...first[0]!, messages: 0, firstMessageId: null, lastMessageId: null }], own: { messages: 2, firstMessageId: "a" } },
    ];
    const segs = numberSegments(
      {
        ...record,
        windows: [
          { sessionId: "w", current: false },
          { sessionId: "c", current: true },
        ],
      } as unknown as SessionRecord,
      [t({ restore: { ...restore, role: "ended" } }), t({ sessionId: "c", restore })],
      reads,
    );
    expect(segs[0]).toMatchObject({ endReason: "restore", restore: { role: "ended" } });
    expect(segs[1]).toMatchObject({ current: true, copy: { of: 1, messages: 2 }, restore: { role: "copy", copyOf: 1 } });
    expect(segs[1]!.label).toContain("a copy of segment 1");
  });
});

describe("segmentNumbered", () => {
  it("past the last: SEGMENT_OUT_OF_RANGE (usage, exit 2) naming how many there are", async () => {
    const segs = numberSegments(record, [t({})], [{ stretches: await readStretches(linesFromEvents(window)) }]);
    expect(segmentNumbered(segs, 2, "k").number).toBe(2);
    let err: unknown;
    try {
      segmentNumbered(segs, 9, "k");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({ code: "SEGMENT_OUT_OF_RANGE", exitCode: 2, message: "k has 2 segments; there is no segment 9" });
  });
});

/** Lines [from, to) of `lines`, numbered and placed as a whole read of them numbers and places them. */
function linesBetween(lines: readonly string[], from: number, to: number): OpenLines {
  return async function* () {
    yield* numberedLines(lines, from, to);
  };
}

/** A checkpoint as the index keeps it: through JSON. */
const kept = (c: StretchCheckpoint | null): StretchCheckpoint => JSON.parse(JSON.stringify(c)) as StretchCheckpoint;

describe("readStretchesGrowing: a read carried on from a checkpoint", () => {
  it("numbers what a whole read numbers, or refuses when the active branch leaves the checkpoint's", async () => {
    let same = 0;
    let refused = 0;
    let twice = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const rand = rng(seed);
      const lines = randomTranscript(rand, { times: true });
      const expected = await readStretches(linesBetween(lines, 0, lines.length));
      const cut = Math.floor(rand() * (lines.length + 1));
      const second = cut + Math.floor(rand() * (lines.length - cut + 1));
      const first = await readStretchesGrowing(linesBetween(lines, 0, cut), null, true);
      expect(first.stretches).toEqual(await readStretches(linesBetween(lines, 0, cut)));
      let got: TranscriptStretch[];
      try {
        let from = kept(first.checkpoint);
        // Half of them carried on twice: the second checkpoint is a carried-on read's.
        if (seed % 2 === 0) {
          from = kept((await readStretchesGrowing(linesBetween(lines, cut, second), from, true)).checkpoint);
          twice += 1;
        }
        got = (await readStretchesGrowing(linesBetween(lines, seed % 2 === 0 ? second : cut, lines.length), from, false)).stretches;
      } catch (err) {
        expect((err as Error).message).toMatch(/active branch leaves the checkpoint's|not held/);
        refused += 1;
        continue;
      }
      expect(got, `seed ${seed}, cut at ${cut} and ${second}`).toEqual(expected);
      same += 1;
    }
    expect(same).toBeGreaterThan(600);
    expect(refused).toBeGreaterThan(100);
    expect(twice).toBeGreaterThan(300);
  });

  it("carries the last stretch on across the cut, and a reset row after it opens the next", async () => {
    const grown = [...window, { type: "reset", id: "r2", parentId: "d", timestamp: "2026-07-01T10:03:00.000Z", reason: "idle" }];
    grown.push(msg("e", "r2", "user", "2026-07-01T10:03:01.000Z"));
    const lines = grown.map((e) => JSON.stringify(e));
    const first = await readStretchesGrowing(linesBetween(lines, 0, window.length), null, true);
    const carried = await readStretchesGrowing(linesBetween(lines, window.length, lines.length), kept(first.checkpoint), true);
    expect(carried.stretches.map((s) => [s.firstMessageId, s.lastMessageId, s.messages, s.endReset?.reason ?? null])).toEqual([
      ["a", "b", 2, "new"],
      ["c", "d", 2, "idle"],
      ["e", "e", 1, null],
    ]);
    expect(carried.checkpoint?.stretches).toEqual(carried.stretches);
    expect(carried.stretches).toEqual(await readStretches(linesBetween(lines, 0, lines.length)));
  });

  it("a checkpoint that is not one is refused", async () => {
    const lines = window.map((e) => JSON.stringify(e));
    const cp = kept((await readStretchesGrowing(linesBetween(lines, 0, 3), null, true)).checkpoint);
    const carry = (from: unknown) => readStretchesGrowing(linesBetween(lines, 3, lines.length), from as StretchCheckpoint, false);
    await expect(carry({ ...cp, stretches: [] })).rejects.toThrow(/not a stretches checkpoint/);
    await expect(carry({ ...cp, stretches: [{ ...cp.stretches[0], messages: -1 }] })).rejects.toThrow(/not a stretches checkpoint/);
    await expect(carry({ ...cp, tree: { ...cp.tree, leaf: 99 } })).rejects.toThrow(/not a tree checkpoint/);
  });
});
