/**
 * The pager (src/cli/pager.ts): which command, when, and through a real pty with the real `less`:
 * a long history is paged, quitting the pager ends the run quietly with exit 0, --no-pager and
 * PAGER=cat print it whole.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/cli/app.js";
import { pagerCommand, pagerWanted, startPager } from "../../src/cli/pager.js";
import { BIN } from "../helpers/built-cli.js";
import { copyState } from "../helpers/corpus.js";

describe("which pager, and when", () => {
  it("OPENCLAW_SESSIONS_PAGER, then PAGER, then less with LESS=FRX and LV=-c unless set; empty or cat: none", () => {
    expect(pagerCommand({})).toEqual({ command: "less", env: { LESS: "FRX", LV: "-c" } });
    expect(pagerCommand({ PAGER: "most", LESS: "-S", LV: "" })).toEqual({ command: "most", env: { PAGER: "most", LESS: "-S", LV: "" } });
    expect(pagerCommand({ OPENCLAW_SESSIONS_PAGER: "less -R", PAGER: "most" })?.command).toBe("less -R");
    expect(pagerCommand({ PAGER: "" })).toBeNull();
    expect(pagerCommand({ PAGER: "cat" })).toBeNull();
    expect(pagerCommand({ OPENCLAW_SESSIONS_PAGER: "", PAGER: "less" })).toBeNull();
  });

  it("only on a terminal, never for --json or --no-pager", () => {
    expect(pagerWanted({ stdout: { write: () => true, isTTY: true } }, {})).toBe(true);
    expect(pagerWanted({ stdout: { write: () => true, isTTY: false } }, {})).toBe(false);
    expect(pagerWanted({ stdout: { write: () => true, isTTY: true } }, { json: true })).toBe(false);
    expect(pagerWanted({ stdout: { write: () => true, isTTY: true } }, { pager: false })).toBe(false);
  });

  it("a pager that cannot start is said once, and the output is written directly", async () => {
    let stderr = "";
    const stdout = { write: () => true, isTTY: true };
    const app = createApp({
      stdout,
      stderr: { write: (s: string) => ((stderr += s), true), isTTY: true },
      stdinIsTTY: false,
      env: { OPENCLAW_SESSIONS_PAGER: "/nonexistent/pager -x" },
      cwd: "/",
    });
    expect(await startPager(app)).toBeNull();
    expect(app.io.stdout).toBe(stdout);
    expect(stderr).toMatch(/^openclaw-sessions: cannot run the pager "\/nonexistent\/pager -x" \(.*ENOENT\); writing directly\n$/);
  });
});

const has = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;

describe.skipIf(!has("script") || !has("less"))("through a real pty and less", () => {
  const MESSAGES = 20_000; // ~1.4 MB of text: far more than a pipe and what less reads ahead hold, so the run is still writing when less quits
  const { stateDir, root } = copyState("files", "reset-chain");
  const active = path.join(stateDir, "agents/main/sessions/7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl");
  let parent = "73a3a4ae";
  const lines: string[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const id = `m${i}`;
    const message = { role: "user", content: [{ type: "text", text: `message number ${i}` }], timestamp: 1782897360000 };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-07-01T09:16:00.000Z", message }));
    parent = id;
  }
  fs.appendFileSync(active, `${lines.join("\n")}\n`);

  /** `history agent:main:main` on a 10-line terminal, "q" typed; the exit status is the CLI's (script -e). */
  function inPty(env: Record<string, string>, ...extra: string[]) {
    const command = [process.execPath, BIN, "history", "agent:main:main", "--state-dir", stateDir, ...extra].map((a) => `'${a}'`).join(" ");
    const r = spawnSync("script", ["-qfec", command, "/dev/null"], {
      input: "q",
      encoding: "utf8",
      maxBuffer: 64 << 20,
      // A guard so a broken pager never hangs the suite (spawnSync blocks the runner's own), past
      // anything a loaded machine takes; nothing is measured against it.
      timeout: 170_000,
      killSignal: "SIGKILL",
      env: { PATH: process.env.PATH, HOME: path.join(root, "home"), TERM: "xterm", LINES: "10", COLUMNS: "80", NO_COLOR: "1", ...env },
    });
    return { code: r.status, out: r.stdout.replace(/\r\n/g, "\n") };
  }

  it("pages a long history with less; quitting it ends the run quietly, exit 0", () => {
    const r = inPty({});
    expect(r.code).toBe(0);
    expect(r.out).toContain("hello from the control UI");
    expect(r.out).not.toContain(`message number ${MESSAGES - 1}`);
    expect(r.out).not.toMatch(/of \d+ messages/); // the run stopped: no footer
    expect(r.out).not.toMatch(/EPIPE|Error|at /);
    // What stderr said while less ran is shown once it has exited.
    expect(r.out).toMatch(/history of agent:main:main/);
  });

  it("--no-pager and PAGER=cat print it whole", () => {
    for (const [env, extra] of [
      [{}, ["--no-pager"]],
      [{ PAGER: "cat" }, []],
    ] as const) {
      const r = inPty(env, ...extra);
      expect(r.code).toBe(0);
      expect(r.out).toContain(`message number ${MESSAGES - 1}`);
      expect(r.out).toContain(`${MESSAGES + 2} of ${MESSAGES + 2} messages`);
    }
  });
});
