/** Store readers hold V8's young generation at its start-up size, in the one process they run in. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { wantsHeapHeldClose, wantsHeapHeldFromStart, wantsYoungGenerationHeld } from "../../src/cli/young-generation.js";
import { BIN } from "../helpers/built-cli.js";
import { scenarioDir } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

/** The commands that read a store. */
const STORE_READERS = ["history", "timeline", "compactions", "check", "grep", "export", "context-pack", "verify-import", "index", "usage"];

describe("wantsYoungGenerationHeld", () => {
  it("is true for the commands that read a store, and never for help, the small commands or a size the user chose", () => {
    for (const cmd of STORE_READERS) expect(wantsYoungGenerationHeld([cmd, "x"], [], {}), cmd).toBe(true);
    for (const cmd of ["ls", "restore", "completion", "skill", "--help", "nope"])
      expect(wantsYoungGenerationHeld([cmd], [], {}), cmd).toBe(false);
    expect(wantsYoungGenerationHeld([], [], {})).toBe(false);
    expect(wantsYoungGenerationHeld(["check", "--help"], [], {})).toBe(false);
    expect(wantsYoungGenerationHeld(["check"], ["--max-semi-space-size=4"], {})).toBe(false);
    expect(wantsYoungGenerationHeld(["check"], [], { NODE_OPTIONS: "--max-semi-space-size=8" })).toBe(false);
  });
});

describe("wantsHeapHeldClose and wantsHeapHeldFromStart", () => {
  it("ls holds its heap once its store proves big, every store reader from its start (never for its help), no other command", () => {
    expect(wantsHeapHeldClose(["ls"])).toBe(true);
    for (const cmd of STORE_READERS) {
      expect(wantsHeapHeldFromStart([cmd, "x"]), cmd).toBe(true);
      expect(wantsHeapHeldFromStart([cmd, "--help"]), cmd).toBe(false);
      expect(wantsHeapHeldClose([cmd]), cmd).toBe(false);
    }
    for (const cmd of ["restore", "completion", "skill", "--help"]) {
      expect(wantsHeapHeldClose([cmd]), cmd).toBe(false);
      expect(wantsHeapHeldFromStart([cmd]), cmd).toBe(false);
    }
    expect(wantsHeapHeldFromStart(["ls"])).toBe(false);
    expect(wantsHeapHeldFromStart([])).toBe(false);
  });
});

describe("a store reader run through the bin", () => {
  const stateDir = path.join(scenarioDir("files", "reset-chain"), "state");
  const env = { PATH: process.env.PATH, HOME: homeNotMade(), NO_COLOR: "1" };
  // At exit: this process's pid and the young generation's size (both semi-spaces), in MB.
  const probe =
    "data:text/javascript,import v8 from 'node:v8';process.on('exit',()=>{const s=v8.getHeapSpaceStatistics().find(x=>x.space_name==='new_space');process.stderr.write('YOUNG '+process.pid+' '+(s.space_size/1048576)+'\\n')})";
  const youngOf = (stderr: string) => [...stderr.matchAll(/^YOUNG (\d+) ([\d.]+)$/gm)].map((m) => ({ pid: m[1], mb: Number(m[2]) }));

  it("runs in this one process, its young generation held, with the output and exit code of a run that sized it itself", () => {
    const args = ["check", "--json", "--fail-on", "warn", "--now", "2026-12-01T00:00:00Z", "--state-dir", stateDir];
    const r = spawnSync(process.execPath, ["--import", probe, BIN, ...args], { encoding: "utf8", env });
    const young = youngOf(r.stderr);
    expect(young, r.stderr).toHaveLength(1);
    expect(JSON.parse(r.stdout).schemaVersion).toBe(2);
    const sized = spawnSync(process.execPath, ["--max-semi-space-size=4", BIN, ...args], { encoding: "utf8", env });
    expect(r.status).toBe(sized.status);
    expect(r.stdout).toBe(sized.stdout);
  });

  /** A store of `n` empty side files: a listing whose walk allocates through many young-generation GCs. */
  const storeOfFiles = (n: number) => {
    const state = tempDir("ocs-young-files-");
    const sessions = path.join(state, "agents/main/sessions");
    fs.mkdirSync(sessions, { recursive: true });
    fs.writeFileSync(path.join(sessions, "sessions.json"), "{}");
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(sessions, `note-${i}.txt`), "");
    return state;
  };
  /** The young generation's size (MB) at the exit of `args` on the bin, run with `flags`. */
  const youngAtExit = (flags: string[], args: string[]) => {
    const r = spawnSync(process.execPath, [...flags, "--import", probe, BIN, ...args], {
      encoding: "utf8",
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(r.status, r.stderr).toBe(0);
    const young = youngOf(r.stderr);
    expect(young).toHaveLength(1);
    return young[0]!.mb;
  };
  /**
   * Held: 2 MB at most, where a run the user sized (`--max-semi-space-size=64`) grows. Node 22's V8
   * now and then grows a held one once even so (about one run in three, the flag set at start-up
   * or at run time alike; Node 24's never did here): held in one of five runs at least.
   */
  const expectHeld = (args: string[]) => {
    const held: number[] = [];
    for (let i = 0; i < 5 && !held.some((mb) => mb <= 2); i++) held.push(youngAtExit([], args));
    expect(Math.min(...held)).toBeLessThanOrEqual(2);
    expect(youngAtExit(["--max-semi-space-size=64"], args)).toBeGreaterThan(2);
  };

  it("keeps the young generation at 2 MB where one the user sized grows (10,000 files listed)", () => {
    expectHeld(["timeline", "--json", "--state-dir", storeOfFiles(10_000)]);
  });

  it("ls holds the young generation once its store has 1,000 files or more, unless the user sized it (3,000 files listed)", () => {
    expectHeld(["ls", "--json", "--no-index", "--state-dir", storeOfFiles(3_000)]);
  });

  it("sets V8's flags back before the bin writes its code cache: a second run reuses it (history streaming a 9 MB transcript, check)", () => {
    const cacheDir = tempDir("ocs-young-cache-");
    const state = tempDir("ocs-young-store-");
    const sessions = path.join(state, "agents/main/sessions");
    fs.mkdirSync(sessions, { recursive: true });
    fs.writeFileSync(path.join(sessions, "sessions.json"), "{}");
    // Past the streaming budget (8 MB): the reader sets its streaming flags.
    const file = path.join(sessions, "big.jsonl");
    const line = `${JSON.stringify({ type: "message", id: "m", timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "x".repeat(1000) } })}\n`;
    fs.writeFileSync(
      file,
      `${JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" })}\n${line.repeat(9000)}`,
    );
    const cacheEnv = { ...env, NODE_COMPILE_CACHE: cacheDir };
    for (const args of [
      ["history", "--file", file, "--state-dir", state, "--jsonl"],
      ["check", "--json", "--now", "2026-12-01T00:00:00Z", "--state-dir", stateDir],
    ]) {
      const runOnce = () => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", env: cacheEnv, maxBuffer: 64 * 1024 * 1024 });
      const first = runOnce();
      expect(first.status, first.stderr).toBe(0);
      const dir = path.join(cacheDir, "openclaw-sessions");
      const file = fs.readdirSync(dir).find((n) => n.endsWith(`_${args[0]}.cache`));
      expect(file, fs.readdirSync(dir).join(" ")).toBeDefined();
      const made = fs.statSync(path.join(dir, file!)).mtimeMs;
      const second = runOnce();
      expect(second.stdout).toBe(first.stdout);
      expect(fs.statSync(path.join(dir, file!)).mtimeMs, args[0]).toBe(made);
    }
  });
});
