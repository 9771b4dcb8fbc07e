/**
 * A transcript's compactions read on from a checkpoint (core/compactions/growing.ts): on random
 * transcripts (branches, resets, compactions, broken rows), a read carried on from any line equals a
 * whole read of the file, or refuses and the file is read whole.
 */
import { describe, expect, it } from "vitest";
import { type CompactionsCheckpoint, isCompactionsCheckpoint, readCompactionsGrowing } from "../../../src/core/compactions/growing.js";
import { readCompactions, type TranscriptCompactions } from "../../../src/core/compactions/span.js";
import { type OpenLines, scanTranscript } from "../../../src/core/transcript/scan.js";
import { numberedLines, randomTranscript, rng } from "../../helpers/random-transcript.js";

/** The file's lines [from, to) at the first open (the new ones), then [0, to) (a later pass reads the whole file). */
function grownLines(lines: readonly string[], from: number, to: number): OpenLines {
  let first = true;
  return async function* () {
    const start = first ? from : 0;
    first = false;
    yield* numberedLines(lines, start, to);
  };
}

/** Two of three assistant turns with the tokens OpenClaw records (a compaction's next turn reads them). */
function withTokens(lines: readonly string[]): string[] {
  return lines.map((text, i) => {
    let row: { message?: { role?: unknown; usage?: unknown } };
    try {
      row = JSON.parse(text) as typeof row;
    } catch {
      return text;
    }
    if (row?.message?.role !== "assistant" || i % 3 === 0) return text;
    return JSON.stringify({ ...row, message: { ...row.message, usage: { input: 100 + i, cacheRead: i % 5, output: 7 } } });
  });
}

async function whole(lines: readonly string[], to = lines.length): Promise<TranscriptCompactions> {
  const { compactions, offPath } = await readCompactions(grownLines(lines, 0, to), { scanner: scanTranscript });
  return { compactions, offPath };
}

/** A checkpoint as the index keeps it: through JSON. */
const kept = (c: CompactionsCheckpoint | null): CompactionsCheckpoint => JSON.parse(JSON.stringify(c)) as CompactionsCheckpoint;

describe("readCompactionsGrowing: compactions carried on from a checkpoint", () => {
  it("gives what a whole read gives, or refuses when the new lines change a compaction's window", async () => {
    const seen = { same: 0, refused: 0, twice: 0, none: 0, waited: 0, carried: 0 };
    for (let seed = 1; seed <= 1500; seed++) {
      const rand = rng(seed);
      const lines = withTokens(randomTranscript(rand, { times: true }));
      const cut = Math.floor(rand() * (lines.length + 1));
      const second = cut + Math.floor(rand() * (lines.length - cut + 1));
      const first = await readCompactionsGrowing(grownLines(lines, 0, cut), null, true, scanTranscript);
      expect(first.facts).toEqual(await whole(lines, cut));
      expect(isCompactionsCheckpoint(kept(first.checkpoint))).toBe(true);
      if (first.checkpoint?.tree === null) seen.none += 1;
      let got: TranscriptCompactions;
      try {
        let from = kept(first.checkpoint);
        // Half of them carried on twice: the second checkpoint is a carried-on read's.
        if (seed % 2 === 0) {
          from = kept((await readCompactionsGrowing(grownLines(lines, cut, second), from, true, scanTranscript)).checkpoint);
          seen.twice += 1;
        }
        const last = from.facts.compactions.at(-1);
        got = (await readCompactionsGrowing(grownLines(lines, seed % 2 === 0 ? second : cut, lines.length), from, false, scanTranscript))
          .facts;
        if (last?.nextTurnTokens === null && got.compactions.at(-1)?.nextTurnTokens !== null) seen.waited += 1;
      } catch (err) {
        expect((err as Error).message).toMatch(/read whole/);
        seen.refused += 1;
        continue;
      }
      expect(got, `seed ${seed}, cut at ${cut} and ${second}`).toEqual(await whole(lines));
      seen.same += 1;
      if (got.compactions.length > 0) seen.carried += 1;
    }
    expect(seen.same).toBeGreaterThan(700);
    expect(seen.refused).toBeGreaterThan(100);
    expect(seen.twice).toBeGreaterThan(300);
    expect(seen.none).toBeGreaterThan(100);
    // Compactions carried as they were read.
    expect(seen.carried).toBeGreaterThan(100);
    // The last compaction's first turn after it, found among the new lines.
    expect(seen.waited).toBeGreaterThan(20);
  });

  it("a checkpoint that is not one is refused", async () => {
    const rows = [
      { type: "session", version: 3, id: "s1", timestamp: "2026-07-01T09:00:00.000Z" },
      { type: "message", id: "a", parentId: null, timestamp: "2026-07-01T09:00:01.000Z", message: { role: "user", content: "hi" } },
      { type: "compaction", id: "c", parentId: "a", timestamp: "2026-07-01T09:00:02.000Z", summary: "s", firstKeptEntryId: "a" },
      { type: "message", id: "b", parentId: "c", timestamp: "2026-07-01T09:00:03.000Z", message: { role: "user", content: "more" } },
    ];
    const lines = rows.map((r) => JSON.stringify(r));
    const cp = kept((await readCompactionsGrowing(grownLines(lines, 0, 3), null, true, scanTranscript)).checkpoint);
    expect(cp.facts.compactions).toHaveLength(1);
    const fact = cp.facts.compactions[0]!;
    const altered: unknown[] = [
      null,
      { ...cp, boundaries: [{ ...cp.boundaries[0], pos: "1" }] },
      { ...cp, facts: { ...cp.facts, offPath: -1 } },
      { ...cp, facts: { ...cp.facts, compactions: [{ ...fact, lost: { ...fact.lost, byRole: { user: "1" } } }] } },
      { ...cp, facts: { ...cp.facts, compactions: [{ ...fact, kept: { entryId: 1, lineNo: 2 } }] } },
      { ...cp, facts: { ...cp.facts, compactions: [{ ...fact, nextTurnTokens: "12" }] } },
    ];
    for (const x of altered) expect(isCompactionsCheckpoint(x), JSON.stringify(x).slice(0, 80)).toBe(false);
    const carry = (from: CompactionsCheckpoint) => readCompactionsGrowing(grownLines(lines, 3, lines.length), from, false, scanTranscript);
    await expect(carry({ ...cp, tree: { ...cp.tree!, leaf: 99 } })).rejects.toThrow(/not a tree checkpoint/);
    // A window moved (the compaction's row elsewhere) is read whole.
    await expect(carry({ ...cp, boundaries: [{ ...cp.boundaries[0]!, lineNo: 9 }] })).rejects.toThrow(/read whole/);
    expect((await carry(cp)).facts).toEqual(await whole(lines));
  });
});
