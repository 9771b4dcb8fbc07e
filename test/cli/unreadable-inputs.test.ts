/**
 * The damage cases of issue 27, each on a corpus copy, run as users run the tool (the built CLI, a
 * process of its own; as `nobody` when the suite is root, so modes bite): the documented exit code,
 * one message line on stderr, no "unexpected error", no hang, nothing written.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import type { CliResult } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { BIN } from "../helpers/built-cli.js";
import { cliUnprivileged, IS_ROOT, killLeftRunning, NOBODY, reachable, writableDir } from "../helpers/unprivileged.js";
import { mkfifo } from "../hostile/inputs.js";

// A hang fails its test at the runner's timeout; the process it left is killed here.
afterEach(killLeftRunning);

const KEY = "agent:main:telegram:direct:424242";
const EARLIEST = "0342c95c-d172-4bd1-ab96-c248789bc645.jsonl.reset.2026-07-01T09-05-10.500Z";
const SECOND = "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z";
const ACTIVE = "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl";

/** A corpus copy the CLI process can reach, with its own HOME (and TMPDIR). */
function store(era: "files" | "sqlite", name: string) {
  const c = copyState(era, name);
  reachable(c.stateDir);
  const home = writableDir(path.join(c.root, "run-home"));
  const sessions = path.join(c.stateDir, "agents/main/sessions");
  const run = (...argv: string[]) => cliUnprivileged([...argv, "--state-dir", c.stateDir], { home });
  return { ...c, sessions, run };
}

/** The message lines (`openclaw-sessions: …`), without hints and context lines. */
function messages(r: CliResult): string[] {
  return r.stderr.split("\n").filter((l) => l.startsWith("openclaw-sessions: "));
}

/** Exit `code` and exactly one message line, matching `line`; no internal error. */
function expectOneLine(r: CliResult, code: number, line: RegExp | string): void {
  expect(r.stderr).not.toMatch(/unexpected error|INTERNAL_ERROR|\n\s+at /);
  expect(r.code, r.stderr).toBe(code);
  expect(messages(r), r.stderr).toHaveLength(1);
  if (typeof line === "string") expect(messages(r)[0]).toBe(`openclaw-sessions: ${line}`);
  else expect(messages(r)[0]).toMatch(line);
}

/** Runs `body` with `dir` at `mode`, giving the mode back after (the tree can then be hashed and removed). */
async function withMode(dir: string, mode: number, body: () => Promise<void>): Promise<void> {
  const before = fs.statSync(dir).mode & 0o7777;
  fs.chmodSync(dir, mode);
  try {
    await body();
  } finally {
    fs.chmodSync(dir, before);
  }
}

describe("a sessions dir that cannot be read", () => {
  it("mode 000: grep, export --archived and ls say what they cannot read (exit 3), never an unexpected EACCES", async () => {
    const s = store("files", "reset-chain");
    const before = hashTree(s.stateDir);
    await withMode(s.sessions, 0o000, async () => {
      expectOneLine(await s.run("grep", "hello"), 3, `cannot read ${s.sessions}: permission denied`);
      const exp = await s.run("export", KEY, "--archived");
      expectOneLine(exp, 3, /sessions\.json is unreadable \(permission denied\); OpenClaw loads it as an empty store/);
      expect(exp.stdout).toBe("");
      expectOneLine(await s.run("ls"), 3, /sessions\.json is unreadable \(permission denied\)/);
      const json = await s.run("export", KEY, "--archived", "--format", "jsonl");
      expect(json.code).toBe(3);
    });
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("searchable but not listable: the key's archives are not shown as none; the dir is named (exit 3) and the key says why", async () => {
    const s = store("files", "reset-chain");
    const before = hashTree(s.stateDir);
    await withMode(s.sessions, 0o311, async () => {
      const ls = await s.run("ls", KEY, "--json");
      expectOneLine(ls, 3, `cannot read ${s.sessions}: permission denied`);
      const [key] = ls.json().sessions;
      expect(key.archives).toEqual([]);
      expect(key.loadNotes).toEqual([
        expect.objectContaining({
          code: "attribution-incomplete",
          message: expect.stringContaining("cannot be listed (permission denied)"),
        }),
      ]);
      expectOneLine(await s.run("history", KEY, "--archived"), 3, `cannot read ${s.sessions}: permission denied`);
    });
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("an agents dir that cannot be listed is named, not 'no agent'", async () => {
    const s = store("files", "reset-chain");
    const agents = path.join(s.stateDir, "agents");
    await withMode(agents, 0o000, async () => {
      expectOneLine(await s.run("ls"), 3, `cannot read ${agents}: permission denied`);
    });
  });
});

describe("one unreadable archive", () => {
  it("the readable earlier segment it chained to is unattributed, and the key and the file say it depended on the unreadable one (exit 3)", async () => {
    const s = store("files", "reset-chain");
    const second = path.join(s.sessions, SECOND);
    const before = hashTree(s.stateDir);
    await withMode(second, 0o000, async () => {
      const r = await s.run("ls", "--json");
      expectOneLine(r, 3, `cannot read ${second}: permission denied`);
      const doc = r.json();
      const key = doc.sessions.find((x: { sessionKey: string }) => x.sessionKey === KEY);
      expect(key.loadNotes).toEqual([
        {
          code: "attribution-incomplete",
          message: `${SECOND} could not be read (permission denied): a file that continues this key's history through it may be listed as belonging to no key`,
        },
      ]);
      const earliest = doc.unattributed.find((u: { path: string }) => u.path.endsWith(EARLIEST));
      expect(earliest.reason).toContain("1 file(s) here could not be read");
    });
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});

describe("a transcript its reader owns", () => {
  // The walk answers for its reader's own files from their mode bits (store/files/scan.ts), and
  // `ls` opens no active transcript: only the walk can say this one cannot be read.
  const active = (s: ReturnType<typeof store>) => path.join(s.sessions, ACTIVE);

  /** `body` with the active transcript owned by whoever the CLI runs as (nobody when the suite is root), at `mode`. */
  async function owned(s: ReturnType<typeof store>, mode: number, body: () => Promise<void>): Promise<void> {
    const file = active(s);
    const st = fs.statSync(file);
    if (IS_ROOT) fs.chownSync(file, NOBODY.uid, NOBODY.gid);
    try {
      await withMode(file, mode, body);
    } finally {
      if (IS_ROOT) fs.chownSync(file, st.uid, st.gid);
    }
  }

  it("without its owner-read bit (mode 200) is named by ls (exit 3)", async () => {
    const s = store("files", "reset-chain");
    await owned(s, 0o200, async () => {
      expectOneLine(await s.run("ls"), 3, `cannot read ${active(s)}: permission denied`);
    });
  });

  it("with it (mode 600) is listed as any other (exit 0)", async () => {
    const s = store("files", "reset-chain");
    await owned(s, 0o600, async () => {
      const r = await s.run("ls", "--json");
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().sessions.find((x: { sessionKey: string }) => x.sessionKey === KEY).active.path).toBe(active(s));
    });
  });
});

describe("a FIFO where a store file should be: no hang, 'a FIFO', exit 3, one line", () => {
  const FIFO = /a FIFO \(named pipe\), not a regular file/;

  it("as a transcript's lock file", async () => {
    const s = store("files", "reset-chain");
    mkfifo(path.join(s.sessions, `${ACTIVE}.lock`));
    const before = hashTree(s.stateDir);
    for (const argv of [["ls"], ["history", KEY], ["timeline", KEY], ["grep", "Bonjour"]]) {
      const r = await s.run(...argv);
      expectOneLine(r, 3, FIFO);
      expect(messages(r)[0]).toContain(`${ACTIVE}.lock`);
    }
    // check also sums up its findings (the lock it could not read is one): the FIFO is named once.
    const check = await s.run("check");
    expect(check.code).toBe(3);
    expect(messages(check).filter((l) => l.includes(`${ACTIVE}.lock`))).toEqual([expect.stringMatching(FIFO)]);
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("as sessions.json", async () => {
    const s = store("files", "reset-chain");
    fs.rmSync(path.join(s.sessions, "sessions.json"));
    mkfifo(path.join(s.sessions, "sessions.json"));
    const before = hashTree(s.stateDir);
    for (const argv of [["ls"], ["history", KEY], ["timeline", KEY], ["export", KEY], ["timeline"]]) {
      const r = await s.run(...argv);
      expectOneLine(r, 3, FIFO);
      expect(messages(r)[0]).toContain("sessions.json");
    }
    // check also sums up its findings (the store it loads as empty is one): the FIFO is named once.
    const check = await s.run("check");
    expect(check.code).toBe(3);
    expect(messages(check).filter((l) => l.includes("sessions.json"))).toEqual([expect.stringMatching(FIFO)]);
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("as the SQLite database", async () => {
    const s = store("sqlite", "sqlite-reset");
    const db = path.join(s.stateDir, "agents/main/agent/openclaw-agent.sqlite");
    for (const side of ["", "-wal", "-shm"]) fs.rmSync(db + side, { force: true });
    mkfifo(db);
    const before = hashTree(s.stateDir);
    for (const argv of [["ls"], ["check"], ["verify-import"], ["history", "agent:main:main"]]) {
      const r = await s.run(...argv);
      expectOneLine(r, 3, FIFO);
      expect(messages(r)[0]).toContain("openclaw-agent.sqlite");
    }
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("as a published archive of the SQLite era (check hashes it against its row)", async () => {
    const s = store("sqlite", "sqlite-deleted");
    const zst = fs.readdirSync(s.sessions).find((n) => n.includes(".jsonl.deleted."))!;
    fs.rmSync(path.join(s.sessions, zst));
    mkfifo(path.join(s.sessions, zst));
    const before = hashTree(s.stateDir);
    for (const argv of [["check"], ["ls"], ["verify-import"], ["grep", "zzz"]]) {
      const r = await s.run(...argv);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).not.toMatch(/unexpected error|INTERNAL_ERROR/);
      expect(messages(r).filter((l) => l.includes(zst))).toEqual([expect.stringMatching(FIFO)]);
    }
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});

/** Overwrites the root page of `table` in a copied database with 0xFF bytes: SQLite reads it as damaged. */
function damageTable(dbFile: string, table: string): void {
  const db = new DatabaseSync(dbFile, { readOnly: true });
  const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = ?").get(table) as { rootpage: number };
  const { page_size: size } = db.prepare("PRAGMA page_size").get() as { page_size: number };
  db.close();
  const fd = fs.openSync(dbFile, "r+");
  fs.writeSync(fd, Buffer.alloc(size, 0xff), 0, size, (rootpage - 1) * size);
  fs.closeSync(fd);
}

describe("verify-import on a damaged database: SQLITE_UNREADABLE (exit 3), never a gap or an internal error", () => {
  const dbOf = (stateDir: string) => path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");

  it.each(["session_nodes", "transcript_events"])("a damaged %s page", async (table) => {
    const s = store("sqlite", "doctor-import");
    damageTable(dbOf(s.stateDir), table);
    const before = hashTree(s.stateDir);
    const r = await s.run("verify-import", "--json");
    expectOneLine(r, 3, `cannot read ${dbOf(s.stateDir)}: database disk image is malformed`);
    expect(r.json().error).toMatchObject({ code: "SQLITE_UNREADABLE", kind: "environment" });
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("a truncated database", async () => {
    const s = store("sqlite", "doctor-import");
    const file = dbOf(s.stateDir);
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 8192) * 4096);
    const r = await s.run("verify-import");
    expectOneLine(r, 3, `cannot read ${file}: database disk image is malformed`);
  });
});

describe("an openclaw.json that is a symlink loop or a dangling symlink is named, not silently ignored", () => {
  it.each([
    ["a symlink loop", "openclaw.json"],
    ["a dangling symlink", "nowhere/openclaw.json"],
  ])("%s", async (cause, target) => {
    const s = store("files", "reset-chain");
    const config = path.join(s.stateDir, "openclaw.json");
    fs.rmSync(config);
    fs.symlinkSync(target, config);
    const timeline = await s.run("timeline", KEY);
    expectOneLine(timeline, 3, `warning: cannot read ${config}: ${cause}; using the era's default policy`);
    expect(timeline.stdout).toContain("unusable");
    for (const argv of [["check"], ["ls"]]) expectOneLine(await s.run(...argv), 3, `cannot read ${config}: ${cause}`);
  });
});

describe("export --format jsonl: byte for byte into a pipe, controls shown on a terminal", () => {
  const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  const hasScript = (() => {
    try {
      execFileSync("script", ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasScript)("a real pty (script(1)) gets no raw ESC, C1 or bidi control; a pipe gets the file's bytes", async () => {
    const s = store("files", "reset-chain");
    const active = path.join(s.sessions, ACTIVE);
    // Raw controls inside a line (ESC is not even valid JSON there): a hostile or damaged transcript.
    fs.appendFileSync(
      active,
      Buffer.from(
        `{"type":"message","id":"e1","parentId":"dc7d6423","timestamp":"2026-07-01T09:16:00.000Z","message":{"role":"user","content":"x \u009b1m \u202eevil \u001b[31mRED \u001b]0;title\u0007"}}\n`,
        "utf8",
      ),
    );
    const piped = await s.run("export", KEY, "--format", "jsonl");
    expect(piped.code, piped.stderr).toBe(0);
    const sha = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");
    expect(sha(piped.stdout)).toBe(sha(fs.readFileSync(active)));

    const command = [process.execPath, BIN, "export", KEY, "--format", "jsonl", "--state-dir", s.stateDir]
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(" ");
    const tty = execFileSync("script", ["-qfec", command, "/dev/null"], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", HOME: path.join(s.root, "run-home"), TERM: "dumb" },
      encoding: "utf8",
    });
    // The pty turns each \n into \r\n; nothing else may be a control.
    const shown = tty.replace(/\r\n/g, "\n");
    expect(shown).not.toMatch(UNSAFE);
    expect(shown).toContain("x <U+009B>1m <U+202E>evil ^[[31mRED ^[]0;title^G");
    expect(shown.split("\n").filter(Boolean)).toHaveLength(piped.stdout.split("\n").filter(Boolean).length);
  });
});
