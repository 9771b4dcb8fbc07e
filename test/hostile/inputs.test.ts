/**
 * Every read command, as a separate process, on the corpus store `single-active` with one hostile
 * input planted (test/hostile/inputs.ts): it ends (a hang is the runner's test timeout, never a
 * figure a loaded machine exceeds), with a documented exit code, names the file when it could not
 * read it (exit 3), stays under 200 MB of peak RSS, and leaves the store byte-identical. A FIFO or
 * device in place of sessions.json, a huge openclaw.json, and a FIFO in place of the SQLite database
 * (no snapshot dir left behind) are in the matrix too. As root, the CLI runs as nobody
 * (test/helpers/unprivileged.ts), so the file without read permission is one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, RSS_PROBE } from "../helpers/built-cli.js";
import { copyState, hashTree, ROOT } from "../helpers/corpus.js";
import { HOSTILE_KINDS, mkfifo, plant, type HostileKind } from "./inputs.js";
import { tempDir } from "../helpers/temp.js";
import { IS_ROOT, NOBODY, reachable, writableDir } from "../helpers/unprivileged.js";

interface Run {
  code: number | null;
  rssMb: number;
  stderr: string;
}

/** The CLI processes still running: a test the runner gave up on (a hang) leaves none behind. */
const running = new Set<ChildProcess>();

function runCli(argv: string[], env: NodeJS.ProcessEnv, scratch: string): Promise<Run> {
  const rssFile = path.join(scratch, `rss-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve) => {
    // The built CLI, as users run it: through tsx, its compiler would count in the peak RSS.
    const child = spawn(process.execPath, ["--import", RSS_PROBE, BIN, ...argv], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", OCS_RSS_FILE: rssFile, ...env },
      stdio: ["ignore", "ignore", "pipe"],
      // As root every mode reads: the CLI runs as nobody, so a file without read permission is one.
      ...(IS_ROOT ? NOBODY : {}),
    });
    running.add(child);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      running.delete(child);
      const kb = fs.existsSync(rssFile) ? Number(fs.readFileSync(rssFile, "utf8")) : 0;
      fs.rmSync(rssFile, { force: true });
      resolve({ code, rssMb: kb / 1024, stderr });
    });
  });
}

// Every case's temp dir goes, whether the case passed or not.
const roots: string[] = [];
/** A corpus copy the CLI process can reach, and its TMPDIR (where the RSS probe writes too). */
function state(era: "files" | "sqlite", name: string) {
  const c = copyState(era, name);
  roots.push(c.root);
  reachable(c.stateDir);
  return { ...c, tmp: writableDir(path.join(c.root, "tmp")) };
}
afterEach(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** The tool's SQLite snapshot dirs in a temp dir (tsx keeps its own cache there too). */
const snapshotsIn = (tmp: string) => fs.readdirSync(tmp).filter((n) => n.startsWith("openclaw-sessions-sqlite-"));

function commands(stateDir: string, file: string): string[][] {
  const s = ["--state-dir", stateDir];
  const key = "agent:main:main";
  return [
    ["ls", ...s],
    ["ls", "--stats", ...s],
    ["timeline", key, ...s],
    ["history", key, ...s],
    ["history", key, "--archived", ...s],
    ["history", "--file", path.basename(file), ...s],
    ["check", ...s],
    ["grep", "zzz-no-such-text", ...s],
    ["export", key, "--archived", "--format", "jsonl", ...s],
  ];
}

/** Inputs a command cannot read, by their nature: every command that meets them must exit 3 and name them. */
const UNREADABLE: ReadonlySet<HostileKind> = new Set([
  "fifo-transcript",
  "socket-transcript",
  "symlink-to-device",
  "symlink-loop",
  "fifo-store",
  "device-store",
  "huge-config",
  "not-zstd",
  "no-permission",
]);
/** Inputs only a command that reads the file's body meets. */
const BODY_ONLY: ReadonlySet<HostileKind> = new Set(["not-zstd", "zstd-bomb"]);
const READS_BODIES = new Set(["ls --stats", "timeline", "history --archived", "history --file", "check", "grep", "export"]);
describe("hostile inputs: every read command finishes, names the file, stays bounded, writes nothing", () => {
  for (const kind of HOSTILE_KINDS) {
    it(kind, async () => {
      const { stateDir, root, tmp } = state("files", "single-active");
      const { file, close } = await plant(kind, stateDir);
      const before = hashTree(stateDir);
      const problems: string[] = [];
      try {
        for (const argv of commands(stateDir, file)) {
          const name =
            argv[0] === "history" && argv[1] === "--file"
              ? "history --file"
              : argv[0] === "history" && argv[2] === "--archived"
                ? "history --archived"
                : argv[1] === "--stats"
                  ? "ls --stats"
                  : argv[0]!;
          const r = await runCli(argv, { HOME: path.join(root, "home"), TMPDIR: tmp }, tmp);
          const why = `${kind}: \`${argv.slice(0, 3).join(" ")}\``;
          if (r.rssMb > 200) {
            // A loaded machine lets V8's GC threads fall behind and a peak spike past its usual size
            // (seen: 208 MB once for a 64 MB run): a run over the bound is measured once more.
            const again = await runCli(argv, { HOME: path.join(root, "home"), TMPDIR: tmp }, tmp);
            if (again.rssMb > 200) problems.push(`${why} peaked at ${Math.round(r.rssMb)} and ${Math.round(again.rssMb)} MB`);
          }
          if (![0, 1, 2, 3].includes(r.code ?? -1)) problems.push(`${why} exit ${r.code}`);
          if (/unexpected error|INTERNAL_ERROR|\n\s+at /.test(r.stderr)) problems.push(`${why} internal error: ${r.stderr.slice(0, 300)}`);
          const meets = !BODY_ONLY.has(kind) || READS_BODIES.has(name);
          if (UNREADABLE.has(kind) && meets) {
            if (r.code !== 3) problems.push(`${why} exit ${r.code}, expected 3`);
            if (!r.stderr.includes(path.basename(file)))
              problems.push(`${why} does not name ${path.basename(file)}: ${r.stderr.slice(0, 300)}`);
          }
          if (
            kind === "zstd-bomb" &&
            READS_BODIES.has(name) &&
            name !== "ls --stats" &&
            name !== "history --file" &&
            !r.stderr.includes(path.basename(file))
          ) {
            problems.push(`${why} does not name the bomb: ${r.stderr.slice(0, 300)}`);
          }
        }
        expect(hashTree(stateDir)).toEqual(before);
      } finally {
        await close();
      }
      expect(problems).toEqual([]);
      expect(snapshotsIn(tmp)).toEqual([]);
    }, 240_000);
  }

  it("a FIFO in place of the SQLite database: every command exits 3 naming it, and no snapshot dir is left", async () => {
    const { stateDir, root, tmp } = state("sqlite", "sqlite-reset");
    const db = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
    fs.rmSync(db);
    for (const side of ["-wal", "-shm"]) fs.rmSync(db + side, { force: true });
    mkfifo(db);
    const problems: string[] = [];
    for (const argv of commands(stateDir, db)) {
      if (argv.includes("--file")) continue;
      const r = await runCli(argv, { HOME: path.join(root, "home"), TMPDIR: tmp }, tmp);
      if (r.code !== 3 || !r.stderr.includes("openclaw-agent.sqlite"))
        problems.push(`${argv.slice(0, 2).join(" ")}: exit ${r.code}: ${r.stderr.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    expect(snapshotsIn(tmp)).toEqual([]);
  }, 240_000);
});

describe("snapshot dirs of a killed run", () => {
  it("are removed by the next run; a live run's dir is kept", async () => {
    const { removeStaleSnapshots } = await import("../../src/store/sqlite/driver.js");
    const tmp = tempDir("ocs-stale-");
    // A pid that cannot exist (above Linux's pid_max) and this process's own pid.
    const dead = path.join(tmp, "openclaw-sessions-sqlite-4194305-abc");
    const mine = path.join(tmp, `openclaw-sessions-sqlite-${process.pid}-def`);
    const other = path.join(tmp, "unrelated-dir");
    for (const d of [dead, mine, other]) fs.mkdirSync(d);
    fs.writeFileSync(path.join(dead, "openclaw-agent.sqlite"), "copy");
    expect(removeStaleSnapshots(tmp)).toEqual([path.basename(dead)]);
    expect(fs.readdirSync(tmp).sort()).toEqual([path.basename(mine), "unrelated-dir"].sort());
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("a run killed by SIGKILL mid-read leaves its dir, and the next run removes it", async () => {
    const { stateDir, root, tmp } = state("sqlite", "sqlite-reset");
    const env = { ...process.env, HOME: path.join(root, "home"), TMPDIR: tmp, NO_COLOR: "1" };
    // The built CLI, as the user the next run is (runCli): a dir another user left is theirs to remove.
    const child = spawn(process.execPath, [BIN, "grep", "zzz", "--state-dir", stateDir], {
      cwd: ROOT,
      env,
      stdio: "ignore",
      ...(IS_ROOT ? NOBODY : {}),
    });
    // Kill it as soon as its snapshot dir appears (or once it ended by itself: then there is nothing to kill).
    let ended = false;
    const closed = new Promise((r) => child.on("close", r)).then(() => (ended = true));
    while (snapshotsIn(tmp).length === 0 && !ended) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGKILL");
    await closed;
    const left = snapshotsIn(tmp);
    const r = await runCli(["ls", "--state-dir", stateDir], { HOME: path.join(root, "home"), TMPDIR: tmp }, tmp);
    expect(r.code).toBe(0);
    // Whatever the killed run left is gone now (its pid is dead); the new run removed its own.
    expect(left.length).toBeLessThanOrEqual(1);
    expect(snapshotsIn(tmp)).toEqual([]);
  });
});
