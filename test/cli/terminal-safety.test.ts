/**
 * Untrusted text (chat messages, tool output, key and file names) never reaches a terminal with
 * its controls: every text mode of every command, on a real store with hostile content.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";
import { run } from "../../src/cli/program.js";
import { homeNotMade } from "../helpers/temp.js";

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const EVIL =
  "\u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 \u001b]8;;http://x.test\u001b\\link\u001b]8;;\u001b\\ \u001b[2J \u009b1m \u202eevil\u202c cr\rx";
const KEY = "agent:main:telegram:direct:424242";
const EVIL_KEY = "agent:main:evil\u001b[2Jkey";

let root = "";
let stateDir = "";
let sessions = "";

function line(o: unknown): string {
  return `${JSON.stringify(o)}\n`;
}

beforeAll(() => {
  ({ root, stateDir } = copyState("files", "reset-chain"));
  sessions = path.join(stateDir, "agents/main/sessions");
  const active = path.join(sessions, "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl");
  const ts = "2026-07-01T09:16:00.000Z";
  fs.appendFileSync(
    active,
    line({
      type: "message",
      id: "e1",
      parentId: "dc7d6423",
      timestamp: ts,
      message: { role: "user", content: [{ type: "text", text: `find ${EVIL}` }], timestamp: 1782897360000 },
    }) +
      line({
        type: "message",
        id: "e2",
        parentId: "e1",
        timestamp: ts,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: `think ${EVIL}` },
            { type: "text", text: `reply ${EVIL}` },
            { type: "toolCall", id: "t1", name: `to\u001b[1mol`, arguments: { q: EVIL } },
          ],
          timestamp: 1782897360000,
        },
      }) +
      line({
        type: "message",
        id: "e3",
        parentId: "e2",
        timestamp: ts,
        message: {
          role: "toolResult",
          toolCallId: "t1",
          toolName: `to\u001b[1mol`,
          content: [{ type: "text", text: `result ${EVIL}` }],
          timestamp: 1782897360000,
        },
      }) +
      line({
        type: "compaction",
        id: "e4",
        parentId: "e3",
        timestamp: ts,
        summary: `summary ${EVIL}`,
        firstKeptEntryId: "e3",
        tokensBefore: 10,
      }),
  );
  // A file no key owns, whose name and first message are hostile.
  const orphan = path.join(sessions, `0badf00d-0000-4000-8000-00000000000\u001b[1m.jsonl`);
  fs.writeFileSync(
    orphan,
    line({ type: "session", version: 3, id: "0badf00d-0000-4000-8000-000000000001", timestamp: ts, cwd: "/w" }) +
      line({
        type: "message",
        id: "o1",
        parentId: null,
        timestamp: ts,
        message: { role: "user", content: [{ type: "text", text: `orphan ${EVIL}` }], timestamp: 1782897360000 },
      }),
  );
  const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
  store[EVIL_KEY] = { ...store["agent:main:main"], label: EVIL };
  fs.writeFileSync(path.join(sessions, "sessions.json"), JSON.stringify(store, null, 2));
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const textRuns: string[][] = [
  ["ls"],
  ["ls", "--stats"],
  ["ls", KEY],
  ["ls", EVIL_KEY],
  ["history", KEY],
  ["history", KEY, "--thinking"],
  ["history", KEY, "--archived"],
  ["history", KEY, "--all-branches"],
  ["history", KEY, "--context"],
  ["history", KEY, "--markdown", "--thinking"],
  ["history", KEY, "--around", "4", "-C", "1"],
  ["timeline"],
  ["timeline", KEY],
  ["check"],
  ["grep", "RED"],
  ["grep", "RED", "--tools"],
  ["grep", "-l", "RED"],
  ["grep", "-c", "RED"],
  ["grep", "evil"],
  ["export", KEY],
  ["export", KEY, "--format", "html"],
  ["export", KEY, "--archived"],
  ["context-pack", KEY, "--include-current"],
  ["compactions"],
  ["compactions", KEY, "--show", "1"],
  ["context-pack", KEY, "--compaction", "1"],
  ["usage"],
  ["usage", EVIL_KEY],
  ["usage", "--by", "model"],
];

describe("no control character reaches a terminal raw", () => {
  it.each(textRuns.map((a) => [a.join(" "), a] as const))("%s", async (_name, args) => {
    const r = await cli([...args, "--state-dir", stateDir], { env: { TZ: "UTC" } });
    expect(r.code, r.stderr).toBeLessThanOrEqual(1);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stderr).not.toMatch(UNSAFE);
  });

  it("the hostile text is shown, escaped, not dropped", async () => {
    const r = await cli(["history", KEY, "--state-dir", stateDir]);
    expect(r.stdout).toContain("^[[31mRED^[[0m");
    expect(r.stdout).toContain("<U+202E>evil<U+202C>");
    expect(r.stdout).toContain("cr^Mx");
  });

  it("--raw stays byte-exact in a pipe, and is escaped on a terminal", async () => {
    const piped = await cli(["history", KEY, "--raw", "--state-dir", stateDir]);
    expect(piped.stdout).toContain(JSON.stringify(`find ${EVIL}`).slice(1, -1).slice(0, 10));
    let out = "";
    const code = await run(["history", KEY, "--raw", "--state-dir", stateDir], {
      stdout: { write: (s: string) => ((out += s), true), isTTY: true },
      stderr: { write: () => true, isTTY: false },
      stdinIsTTY: false,
      env: { NO_COLOR: "1", HOME: homeNotMade(), PAGER: "cat" }, // a terminal, without a pager in the way
      cwd: process.cwd(),
    });
    expect(code).toBe(0);
    expect(out).toContain("find ");
    expect(out).not.toMatch(UNSAFE);
  });

  it("restore's notes on stderr name a hostile key escaped", async () => {
    const own = copyState("files", "reset-chain");
    try {
      const dir = path.join(own.stateDir, "agents/main/sessions");
      const store = JSON.parse(fs.readFileSync(path.join(dir, "sessions.json"), "utf8"));
      store[EVIL_KEY] = { ...store["agent:main:main"] };
      fs.writeFileSync(path.join(dir, "sessions.json"), JSON.stringify(store, null, 2));
      const orphan = path.join(dir, "0badf00d-0000-4000-8000-000000000001.jsonl");
      fs.writeFileSync(
        orphan,
        line({ type: "session", version: 3, id: "0badf00d-0000-4000-8000-000000000001", timestamp: "2026-07-01T09:16:00.000Z", cwd: "/w" }),
      );
      const args = [
        "restore",
        orphan,
        "--key",
        EVIL_KEY,
        "--yes",
        "--state-dir",
        own.stateDir,
        "--manifest-dir",
        path.join(own.root, "runs"),
      ];
      const r = await cli(args, { env: { TZ: "UTC" } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("restored agent:main:evil^[[2Jkey");
      expect(r.stderr).not.toMatch(UNSAFE);
    } finally {
      fs.rmSync(own.root, { recursive: true, force: true });
    }
  });

  it("JSON stays exact: the text round-trips", async () => {
    const r = await cli(["history", KEY, "--json", "--state-dir", stateDir]);
    const texts = r.json().messages.map((m: { text: string }) => m.text);
    expect(texts).toContain(`find ${EVIL}`);
  });
});
