/** `history --around <line> -C k`: one window, the same in the streamed formats and in --json. */
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";

const MAIN = "agent:main:main";

describe("history --around", () => {
  let run: (argv: string[]) => ReturnType<typeof cli>;
  let lines: number[] = [];
  beforeAll(async () => {
    const { stateDir, home } = copyState("files", "single-active");
    run = (argv) => cli(["history", MAIN, ...argv, "--state-dir", stateDir], { env: { HOME: home } });
    lines = (await run(["--json"])).json().messages.map((m: { lineNo: number }) => m.lineNo);
    expect(lines.length).toBeGreaterThan(8);
  });

  const window = (i: number, k: number) => lines.slice(Math.max(0, i - k), i + k + 1);

  it("the message at the line (or the first after it) with k messages either side, in --json and --jsonl alike", async () => {
    for (const [i, k] of [
      [5, 2],
      [0, 3],
      [lines.length - 1, 2],
    ] as const) {
      const json = await run(["--around", String(lines[i]), "-C", String(k), "--json"]);
      expect(json.code).toBe(0);
      expect(json.json().messages.map((m: { lineNo: number }) => m.lineNo)).toEqual(window(i, k));
      const jsonl = await run(["--around", String(lines[i]), "-C", String(k), "--jsonl"]);
      const streamed = jsonl.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((r) => r.recordType === "message")
        .map((r) => r.lineNo);
      expect(streamed).toEqual(window(i, k));
    }
    // A line between two messages (a tool result, a header) picks the message after it.
    const gap = lines.findIndex((l, i) => i > 0 && l - lines[i - 1]! > 1);
    expect(gap).toBeGreaterThan(0);
    const between = await run(["--around", String(lines[gap]! - 1), "-C", "1", "--json"]);
    expect(between.json().messages.map((m: { lineNo: number }) => m.lineNo)).toEqual(window(gap, 1));
  });

  it("past the last message: LINE_NOT_FOUND, exit 2, in text and --json", async () => {
    const past = String(lines.at(-1)! + 1);
    const text = await run(["--around", past]);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`no message at or after line ${past} in the file read`);
    const json = await run(["--around", past, "--json"]);
    expect(json.code).toBe(2);
    expect(json.json().error.code).toBe("LINE_NOT_FOUND");
  });
});
