/** Text tables fit the terminal (process.stdout.columns, else COLUMNS); pipes get every cell whole. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { scenarioDir } from "../helpers/corpus.js";
import { run } from "../../src/cli/program.js";
import { displayWidth } from "../../src/render/table.js";
import { homeNotMade } from "../helpers/temp.js";

const state = (s: string) => path.join(scenarioDir("files", s), "state");
const ARCHIVE = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";

const tables: Array<[string, string[]]> = [
  ["ls", ["ls", "--state-dir", state("reset-chain")]],
  ["ls (files no key owns)", ["ls", "--state-dir", state("orphans")]],
  ["ls --stats --absolute", ["ls", "--stats", "--absolute", "--tz", "UTC", "--state-dir", state("artifact-zoo")]],
  ["timeline summary", ["timeline", "--state-dir", state("reset-chain")]],
  ["restore plan", ["restore", ARCHIVE, "--state-dir", state("reset-chain"), "--manifest-dir", "/nonexistent-manifests"]],
];

/** The lines of the tables in a text output: from a header row (upper-case words) to the next blank line. */
function tableLines(out: string): string[] {
  const lines: string[] = [];
  let inTable = false;
  for (const l of out.split("\n")) {
    if (/^(#|[A-Z]{2,})( +[A-Z#(][A-Z0-9 ()/_#…]*)+$/.test(l.trim()) && !l.startsWith(" ")) inTable = true;
    else if (l.trim() === "" || /^\s/.test(l)) inTable = false;
    if (inTable) lines.push(l);
  }
  return lines;
}

async function onTty(args: string[], columns: number): Promise<string> {
  let out = "";
  await run(args, {
    stdout: { write: (s: string) => ((out += s), true), isTTY: true, columns } as never,
    stderr: { write: () => true, isTTY: false },
    stdinIsTTY: false,
    env: { NO_COLOR: "1", HOME: homeNotMade(), PAGER: "cat" }, // a terminal, without a pager in the way
    cwd: process.cwd(),
  });
  return out;
}

describe("every text table fits", () => {
  it.each(tables)("%s: COLUMNS=80", async (_n, args) => {
    const r = await cli(args, { env: { COLUMNS: "80" } });
    const lines = tableLines(r.stdout);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(80);
  });

  it.each(tables)("%s: a terminal of 60 columns", async (_n, args) => {
    const lines = tableLines(await onTty(args, 60));
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(displayWidth(l), l).toBeLessThanOrEqual(60);
  });

  it("a cut keeps the distinguishing end of a file name", async () => {
    const out = await onTty(["ls", "--state-dir", state("orphans")], 80);
    const fileLines = out.split("\n").filter((l) => l.includes("…") && l.includes(".jsonl"));
    for (const l of fileLines) expect(l).toMatch(/…[^ ]*(\.jsonl|Z|\.zst|\.bak[^ ]*|\.deleted[^ ]*)\s/);
  });

  it("a pipe gets every cell whole, one row a line, no rules", async () => {
    const r = await cli(["ls", "--state-dir", state("reset-chain")]);
    expect(r.stdout).toContain("agent:main:telegram:direct:424242");
    expect(r.stdout).not.toMatch(/[┌─│├]/);
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(3);
  });

  it("a wide terminal shows whole names", async () => {
    const out = await onTty(["ls", "--state-dir", state("orphans")], 200);
    expect(out).not.toMatch(/\S…\S*\.jsonl/);
  });
});
