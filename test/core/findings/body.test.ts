import { describe, expect, it } from "vitest";
import { BodyScanner, bodyFindings, type BodyFacts, type BodyTarget } from "../../../src/core/findings/body.js";
import { numberedLines, randomTranscript, rng } from "../../helpers/random-transcript.js";

/** A small oversize limit, so some random lines are oversized. */
const OVERSIZE = 300;
const target: BodyTarget = { agentId: "main", sessionKey: "agent:main:main", path: "/s/s1.jsonl", expectedId: "s1", bytes: null };

function feed(scanner: BodyScanner, lines: readonly string[], from: number, to: number): void {
  for (const line of numberedLines(lines, from, to)) scanner.line(line);
}

/** What a finished scan holds, as plain data (its tree's table and path as arrays). */
function plain(facts: BodyFacts) {
  const { tree, ...rest } = facts;
  return {
    ...rest,
    nodes: [...tree.nodes],
    path: [...tree.path],
    keptIds: [...tree.keptIds],
    leaf: tree.leaf,
    leafRule: tree.leafRule,
    leafRows: tree.leafRows,
  };
}

/** A scanner carried on from a checkpoint taken after line `at` (through JSON, as the index keeps it). */
function carriedOn(scanner: BodyScanner): BodyScanner {
  return new BodyScanner(OVERSIZE, JSON.parse(JSON.stringify(scanner.checkpoint())));
}

describe("a body scan carried on from a checkpoint", () => {
  it("finds what a whole read finds, or refuses when the active branch leaves the checkpoint's", () => {
    let same = 0;
    let refused = 0;
    let twice = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const rand = rng(seed);
      const lines = randomTranscript(rand, { oversize: OVERSIZE });
      const whole = new BodyScanner(OVERSIZE);
      feed(whole, lines, 0, lines.length);
      const expected = whole.finish();
      const cut = Math.floor(rand() * (lines.length + 1));
      const second = cut + Math.floor(rand() * (lines.length - cut + 1));
      const first = new BodyScanner(OVERSIZE);
      feed(first, lines, 0, cut);
      let got: BodyFacts;
      try {
        let resumed = carriedOn(first);
        feed(resumed, lines, cut, second);
        // Half of them carried on twice: the second checkpoint is a carried-on scanner's.
        if (seed % 2 === 0) {
          resumed = carriedOn(resumed);
          twice += 1;
        }
        feed(resumed, lines, second, lines.length);
        got = resumed.finish();
      } catch (err) {
        expect((err as Error).message).toMatch(/active branch leaves the checkpoint's/);
        refused += 1;
        continue;
      }
      expect(plain(got), `seed ${seed}, cut at ${cut} and ${second}`).toEqual(plain(expected));
      expect(bodyFindings(got, target, OVERSIZE)).toEqual(bodyFindings(expected, target, OVERSIZE));
      same += 1;
    }
    // Most carry on; the branch leaves the checkpoint's in some (a leaf row or a parent further back).
    expect(same).toBeGreaterThan(600);
    expect(refused).toBeGreaterThan(100);
    expect(twice).toBeGreaterThan(300);
  });

  it("a transcript that only grew along its branch is carried on, its calls paired across the cut", () => {
    const call = (id: string, parentId: string | null, callId: string) =>
      JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: "t",
        message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "exec" }] },
      });
    const result = (id: string, parentId: string, callId: string) =>
      JSON.stringify({ type: "message", id, parentId, timestamp: "t", message: { role: "toolResult", toolCallId: callId, content: "r" } });
    const lines = [
      JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "t", cwd: "/w" }),
      call("a", null, "c1"),
      result("b", "a", "c1"),
      call("c", "b", "c2"),
    ];
    const grown = [...lines, result("d", "c", "c2"), call("e", "d", "c3")];
    const first = new BodyScanner(OVERSIZE);
    feed(first, grown, 0, lines.length);
    const resumed = carriedOn(first);
    feed(resumed, grown, lines.length, grown.length);
    const facts = resumed.finish();
    expect(facts.unanswered).toEqual([{ line: 6, callId: "c3", tool: "exec" }]);
    expect(facts.orphanResults).toEqual([]);
    expect(facts.linesRead).toBe(6);
  });

  it("none is taken once a read error ended the lines (a later read reads the file whole)", () => {
    const scanner = new BodyScanner(OVERSIZE);
    feed(scanner, ['{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}'], 0, 1);
    expect(scanner.checkpoint()).not.toBeNull();
    scanner.line({ lineNo: 2, text: null, bytes: 0, offset: 60, readError: "EIO" });
    expect(scanner.checkpoint()).toBeNull();
  });

  it("a checkpoint that is not one is refused", () => {
    const cp = new BodyScanner(OVERSIZE).checkpoint()!;
    expect(() => new BodyScanner(OVERSIZE, { ...cp, linesRead: -1 })).toThrow(/not a body checkpoint/);
    expect(() => new BodyScanner(OVERSIZE, { ...cp, pairing: { ...cp.pairing, leaf: 3 } })).toThrow(/not a body checkpoint/);
    expect(() => new BodyScanner(OVERSIZE, { ...cp, tree: { ...cp.tree, hashes: "!" } })).toThrow();
  });
});
