/**
 * A disk that fills up under a run: stdout redirected to a file that cannot grow, and an index
 * cache that cannot. `ulimit -f` stands in for the full disk, as users run the tool (the bin, a
 * child process): Node ignores SIGXFSZ, so a write past the limit fails (EFBIG), as one past the
 * end of a full disk does (ENOSPC). Each says one line and exits 3 where the output is cut short;
 * a cache that cannot be written only costs the next run its speed, and says so once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateStore } from "../../bench/gen-store.js";
import { BIN } from "../helpers/built-cli.js";
import { copyState } from "../helpers/corpus.js";
import { indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

let root = "";
let stateDir = "";
let key = "";

beforeAll(async () => {
  root = tempDir("ocs-full-disk-");
  // Enough keys that their facts outgrow the cache's limit below, which the index's tables fit in;
  // old enough for a run to keep what it learns from them.
  stateDir = generateStore(root, { keys: 300 }).stateDir;
  key = Object.keys(JSON.parse(fs.readFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), "utf8")))[0]!;
  await pastRacyWindow();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The installed entry with every file it writes held under `limitKb` KiB; `redirect` (e.g. `> file`) after it. */
function limited(limitKb: number, argv: string[], env: Record<string, string>, redirect = "") {
  const r = spawnSync("bash", ["-c", `ulimit -f ${limitKb}; exec ${[process.execPath, BIN, ...argv].map(q).join(" ")} ${redirect}`], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: "1", HOME: homeNotMade(), ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function unlimited(argv: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...argv], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: "1", HOME: homeNotMade(), ...env },
  });
}

describe("stdout to a file that cannot grow", () => {
  it("says so in one line and exits 3, never 0 and never a stack trace, in every output format", () => {
    const out = path.join(root, "out");
    for (const argv of [
      ["ls", "--json"],
      ["timeline", "--json"],
      ["history", key, "--archived", "--jsonl"],
      ["history", key, "--archived", "--json"],
      ["grep", "--json", "answer"],
    ]) {
      // Without the index, which could not be written under this limit either (a line of its own, below).
      const r = limited(4, [...argv, "--no-index", "--state-dir", stateDir], {}, `> ${q(out)}`);
      const what = `${argv.join(" ")}: ${r.stderr}`;
      expect(r.status, what).toBe(3);
      expect(r.stderr, what).toBe(
        "openclaw-sessions: writing the output failed: the file grew past the size this process may write (ulimit -f) or its filesystem holds [EFBIG]; what was written is cut short\n" +
          "  hint: raise the limit, or write to another filesystem\n",
      );
      expect(fs.statSync(out).size).toBeLessThanOrEqual(4096);
    }
  });
});

describe("stderr to a file that cannot grow", () => {
  it("leaves the run's output and exit code its own (there is nowhere to say it)", () => {
    const err = path.join(root, "err");
    for (const [argv, status] of [
      [["ls"], 0],
      [["check", "--json", "--now", "2026-12-01T00:00:00Z"], 1], // the generated store's findings, as without the limit
    ] as const) {
      const expected = unlimited([...argv, "--no-index", "--state-dir", stateDir], {});
      expect(expected.status).toBe(status);
      expect(expected.stderr).not.toBe(""); // it has something to say there
      const r = limited(0, [...argv, "--no-index", "--state-dir", stateDir], {}, `2> ${q(err)}`);
      expect(r.status, argv.join(" ")).toBe(status);
      expect(r.stdout).toBe(expected.stdout);
      expect(fs.statSync(err).size).toBe(0);
    }
  });
});

describe("an index cache that cannot grow", () => {
  it("`index` names the index and SQLite's error (INDEX_UNWRITABLE, exit 3), not an internal error", () => {
    const cache = tempDir("ocs-full-disk-cache-");
    const r = limited(400, ["index", "--json", "--state-dir", stateDir], { XDG_CACHE_HOME: cache });
    expect(r.status, r.stderr).toBe(3);
    const file = indexFileOf(stateDir, cache);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "INDEX_UNWRITABLE",
      kind: "environment",
      message: `cannot write the index ${file}: disk I/O error`,
      path: file,
    });
    expect(r.stderr).toBe(
      `openclaw-sessions: cannot write the index ${file}: disk I/O error\n` +
        "  hint: make room on its disk or make its directory writable, or point XDG_CACHE_HOME at another; --no-index runs any command without it\n",
    );
  });

  it("a reader answers as with --no-index, and warns once that what it learned is not kept", () => {
    const cache = tempDir("ocs-full-disk-cache-");
    const file = indexFileOf(stateDir, cache);
    const expected = unlimited(["timeline", "--json", "--no-index", "--state-dir", stateDir], {});
    for (let run = 0; run < 2; run++) {
      const r = limited(400, ["timeline", "--json", "--state-dir", stateDir], { XDG_CACHE_HOME: cache });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
      expect(r.stderr).toBe(
        `openclaw-sessions: cannot write the index ${file} (disk I/O error); what this run learned is not kept, so the next run reads those files again (--no-index skips the index)\n`,
      );
    }
  });
});

describe("a temp dir that cannot hold a SQLite store's copy", () => {
  it("names the copy and the temp dir (exit 3), with TMPDIR as the way out, and leaves no copy behind", () => {
    const { stateDir: sqliteState, root: sqliteRoot } = copyState("sqlite", "sqlite-reset");
    const tmp = tempDir("ocs-full-disk-tmp-");
    try {
      const db = path.join(sqliteState, "agents/main/agent/openclaw-agent.sqlite");
      // The database (684 KB) is read from a private copy, which cannot be written past 16 KiB.
      const r = limited(16, ["ls", "--state-dir", sqliteState], { TMPDIR: tmp, XDG_CACHE_HOME: tempDir("ocs-full-disk-cache-") });
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toBe(
        `openclaw-sessions: copying ${db} to read it failed: the file grew past the size this process may write (ulimit -f) or its filesystem holds (${tmp}) [EFBIG]\n` +
          "  hint: free some space in that dir, or point TMPDIR at a dir with room for the database and its WAL, then run the same command again\n",
      );
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      fs.rmSync(sqliteRoot, { recursive: true, force: true });
    }
  });
});
