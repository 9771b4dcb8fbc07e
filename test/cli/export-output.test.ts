/**
 * `export -o` writes through store/atomic-write.ts: the target appears whole or not at all. A real
 * SIGINT or SIGTERM to the CLI while it writes a ~30 MB page leaves neither the target nor its
 * temp; a finished export leaves only the target; --force replaces through a rename.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateStore } from "../../bench/gen-store.js";
import { generateTranscript } from "../../bench/gen-transcript.js";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { scenarioDir } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

let stateDir = "";
let key = "";

beforeAll(() => {
  const g = generateStore(tempDir("ocs-export-big-"), { keys: 1 });
  const store = JSON.parse(fs.readFileSync(path.join(g.sessionsDir, "sessions.json"), "utf8")) as Record<string, { sessionId: string }>;
  key = Object.keys(store)[0]!;
  generateTranscript(path.join(g.sessionsDir, `${store[key]!.sessionId}.jsonl`), 30_000_000);
  stateDir = g.stateDir;
});

/** Start `export -o`, wait for its temp to appear in `dir`, send `signal`; resolves with how it ended. */
function interruptMidWrite(
  dir: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: string | null; stderr: string; seen: string[] }> {
  const child = spawn(process.execPath, [BIN, "export", key, "--format", "html", "-o", path.join(dir, "x.html"), "--state-dir", stateDir], {
    env: { ...process.env, HOME: homeNotMade(), NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.on("close", (code, sig) => resolve({ code, signal: sig, stderr })),
  );
  let seen: string[] = [];
  const poll = setInterval(() => {
    seen = fs.readdirSync(dir);
    if (seen.length === 0) return;
    clearInterval(poll);
    child.kill(signal);
  }, 2);
  return ended.then((e) => {
    clearInterval(poll);
    return { ...e, seen };
  });
}

describe("export -o: the target whole or not at all", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`a real ${signal} mid-write leaves no temp and no partial target, and ends the process by that signal`, async () => {
      const dir = tempDir("ocs-export-out-");
      const r = await interruptMidWrite(dir, signal);
      // The temp was there (the write had begun) before the signal.
      expect(r.seen, `the export ended before its temp was seen: ${r.code} ${r.signal} ${r.stderr}`).toEqual([
        expect.stringMatching(/^\.x\.html\..*\.tmp$/),
      ]);
      expect(r.signal ?? r.code).toBe(signal);
      expect(fs.readdirSync(dir)).toEqual([]);
    });
  }

  it("a finished export leaves the target only; --force replaces it; without --force an existing file is refused", async () => {
    const dir = tempDir("ocs-export-out-");
    const target = path.join(dir, "small.md");
    const args = [
      "export",
      "agent:main:telegram:direct:424242",
      "--state-dir",
      path.join(scenarioDir("files", "reset-chain"), "state"),
      "-o",
      target,
    ];
    expect((await cli(args)).code).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(["small.md"]);
    const first = fs.readFileSync(target, "utf8");
    expect(first.length).toBeGreaterThan(0);
    fs.writeFileSync(target, "old");
    expect((await cli(args)).code).toBe(5);
    expect(fs.readFileSync(target, "utf8")).toBe("old");
    const ino = fs.statSync(target).ino;
    expect((await cli([...args, "--force"])).code).toBe(0);
    // The same document but for its "Exported:" time (each run's clock: a slow run crosses a second).
    const unstamped = (md: string) => md.replace(/^- \*\*Exported:\*\* .*$/m, "- **Exported:** <time>");
    expect(unstamped(fs.readFileSync(target, "utf8"))).toBe(unstamped(first));
    expect(unstamped(first)).not.toBe(first);
    expect(fs.statSync(target).ino).not.toBe(ino); // renamed into place, not rewritten in place
    expect(fs.readdirSync(dir)).toEqual(["small.md"]);
  });
});
