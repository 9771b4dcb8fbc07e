import { describe, expect, it } from "vitest";
import { readStretches } from "../../../src/core/key-segments.js";
import { TranscriptFacts, type FactsCheckpoint } from "../../../src/core/timeline/facts.js";
import { linesFromEvents, parseLine } from "../../../src/core/transcript/parse.js";
import { randomTranscript, rng } from "../../helpers/random-transcript.js";

/** Records [from, to) of `lines` into `facts`, each parsed as a whole read parses it. */
async function feed(facts: TranscriptFacts, lines: readonly string[], from: number, to: number): Promise<void> {
  for await (const line of linesFromEvents(lines.slice(0, to))()) if (line.lineNo > from) facts.add(parseLine(line));
}

/** Where the numbering cuts the first `to` lines: the reset rows that open its stretches. */
async function cutsOf(lines: readonly string[], to: number): Promise<Set<number>> {
  const stretches = await readStretches(linesFromEvents(lines.slice(0, to)));
  return new Set(stretches.flatMap((s) => (s.startReset ? [s.startReset.lineNo] : [])));
}

/** A checkpoint as the index keeps it: through JSON. */
const kept = (facts: TranscriptFacts): FactsCheckpoint => JSON.parse(JSON.stringify(facts.checkpoint())) as FactsCheckpoint;

describe("the timeline's facts carried on from a checkpoint", () => {
  it("are a whole read's, cut where the numbering cuts the grown file, or refused when its first lines are cut elsewhere now", async () => {
    let same = 0;
    let refused = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const rand = rng(seed);
      const lines = randomTranscript(rand, { times: true });
      const cut = Math.floor(rand() * (lines.length + 1));
      const cuts = await cutsOf(lines, lines.length);
      const whole = new TranscriptFacts(cuts);
      await feed(whole, lines, 0, lines.length);
      const first = new TranscriptFacts(await cutsOf(lines, cut));
      await feed(first, lines, 0, cut);
      let carried: TranscriptFacts;
      try {
        carried = TranscriptFacts.carriedOn(kept(first), cuts);
      } catch (err) {
        expect((err as Error).message).toMatch(/cut elsewhere now/);
        refused += 1;
        continue;
      }
      await feed(carried, lines, cut, lines.length);
      expect(carried.finish(), `seed ${seed}, cut at ${cut}`).toEqual(whole.finish());
      expect(carried.problems).toBe(whole.problems);
      expect(carried.checkpoint()).toEqual(whole.checkpoint());
      same += 1;
    }
    expect(same).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(10);
  });

  it("a checkpoint that is not one is refused", () => {
    const cp = new TranscriptFacts(new Set()).checkpoint();
    expect(() => TranscriptFacts.carriedOn({ ...cp, lastLine: -1 }, new Set())).toThrow(/not a facts checkpoint/);
    expect(() => TranscriptFacts.carriedOn({ ...cp, stretches: [] }, new Set())).toThrow(/not a facts checkpoint/);
    expect(() => TranscriptFacts.carriedOn({ ...cp, stretches: [{ ...cp.stretches[0]!, errors: null as never }] }, new Set())).toThrow(
      /not a facts checkpoint/,
    );
  });
});
