/**
 * OpenClaw writing while restore runs: at each pause point of a restore, OpenClaw's writers are
 * driven by hand (test/helpers/openclaw-writer.ts: its lock files, its temp-and-rename). No
 * OpenClaw write may be lost or detached from the key: restore waits for it, refuses (exit 5,
 * rolled back) or reports it (exit 5, the write kept) — never "restored" over it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { copyState, hashTree } from "../helpers/corpus.js";
import { beginStoreWrite, tryTranscriptLock } from "../helpers/openclaw-writer.js";
import { storeContext } from "../helpers/store-context.js";
import { applyRestore, planRestore } from "../../src/commands/restore.js";
import { ToolError } from "../../src/core/errors.js";
import { acquireTranscriptLock, releaseTranscriptLock } from "../../src/store/files/session-lock.js";

const KEY = "agent:main:telegram:direct:424242";
const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
const GEN4 = "f1091dc4-aaaf-4980-b920-36af23252a48";
const DEST = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl";

// A live process that looks like OpenClaw to OpenClaw's own owner check (argv[0] "openclaw").
let openclaw: ChildProcess;
beforeAll(() => {
  openclaw = spawn("sleep", ["600"], { argv0: "openclaw", stdio: "ignore" });
});
afterAll(() => {
  openclaw.kill("SIGKILL");
});
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function setup() {
  const s = copyState("files", "reset-chain");
  roots.push(s.root);
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const ctx = storeContext({ env: { HOME: s.home, TMPDIR: path.join(s.root, "tmp") }, cwd: s.stateDir });
  const opts = { stateDir: s.stateDir, archive: GEN3, manifestDir: path.join(s.root, "manifests") };
  return { ...s, sessions, ctx, opts, storePath: path.join(sessions, "sessions.json"), current: path.join(sessions, `${GEN4}.jsonl`) };
}

async function applyPausing(s: ReturnType<typeof setup>, at: string, act: () => void): Promise<unknown> {
  const planned = await planRestore(s.opts, s.ctx);
  let hit = false;
  const result = await applyRestore(planned, {
    ...s.ctx,
    onStep: (p) => {
      if (p === at && !hit) {
        hit = true;
        act();
      }
    },
  }).catch((e: unknown) => e);
  expect(hit, `pause point ${at} reached`).toBe(true);
  return result;
}

const refusedWith = (err: unknown, code: string) => {
  expect(err, String(err)).toBeInstanceOf(ToolError);
  expect((err as ToolError).code).toBe(code);
  expect((err as ToolError).exitCode).toBe(5);
};

describe("OpenClaw's transcript lock", () => {
  it("taken after the plan, before the first write: refused (exit 5), nothing written", async () => {
    const s = setup();
    const before = hashTree(s.stateDir);
    const planned = await planRestore(s.opts, s.ctx);
    const lock = tryTranscriptLock(s.current, openclaw.pid!);
    expect(lock.acquired).toBe(true);
    refusedWith(await applyRestore(planned, s.ctx).catch((e: unknown) => e), "LIVE_LOCK");
    if (lock.acquired) lock.release();
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("taken after the backup, just before the transcript moves: refused, the store untouched", async () => {
    const s = setup();
    const before = hashTree(s.stateDir);
    let release = () => {};
    const err = await applyPausing(s, "backup-store", () => {
      const lock = tryTranscriptLock(s.current, openclaw.pid!);
      expect(lock.acquired).toBe(true);
      if (lock.acquired) release = lock.release;
    });
    release();
    refusedWith(err, "LIVE_LOCK");
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  for (const at of ["archive-current:linked", "archive-current", "place-transcript:temp", "place-transcript"]) {
    it(`an OpenClaw appender at ${at} finds restore holding the lock and waits; nothing lands in the file being archived`, async () => {
      const s = setup();
      const currentBytes = fs.readFileSync(s.current);
      let attempts: ReturnType<typeof tryTranscriptLock>[] = [];
      const result = await applyPausing(s, at, () => {
        attempts = [s.current, path.join(s.sessions, DEST)].map((t) => tryTranscriptLock(t, openclaw.pid!));
      });
      expect(result).toMatchObject({ applied: true });
      for (const a of attempts) expect(a).toMatchObject({ acquired: false, holder: process.pid });
      // The former transcript is intact under its .reset name; no file came back under the old name.
      const reset = fs.readdirSync(s.sessions).find((n) => n.startsWith(`${GEN4}.jsonl.reset.`))!;
      expect(fs.readFileSync(path.join(s.sessions, reset))).toEqual(currentBytes);
      expect(fs.existsSync(s.current)).toBe(false);
      // The locks are released afterwards: OpenClaw gets them at once.
      const after = tryTranscriptLock(path.join(s.sessions, DEST), openclaw.pid!);
      expect(after.acquired).toBe(true);
      if (after.acquired) after.release();
      expect(process.title).not.toBe("openclaw-sessions/openclaw");
    });
  }
});

describe("a writer that ignores the lock", () => {
  it("recreating the old transcript name mid-run: reported (exit 5, CHANGED_DURING_RESTORE), the file kept, never 'restored'", async () => {
    const s = setup();
    const turn = '{"type":"session","version":3,"id":"f1091dc4-aaaf-4980-b920-36af23252a48"}\n';
    const err = await applyPausing(s, "place-transcript", () => fs.writeFileSync(s.current, turn));
    refusedWith(err, "CHANGED_DURING_RESTORE");
    expect((err as ToolError).message).toContain(`${s.current}: should be gone`);
    expect(fs.readFileSync(s.current, "utf8")).toBe(turn);
  });
});

describe("OpenClaw's sessions.json writes", () => {
  const touch = (store: Record<string, Record<string, unknown>>) => {
    store["agent:main:main"]!.updatedAt = 1_900_000_000_000;
  };

  it("in flight (its temp exists, its pid runs) before restore's store write: refused, rolled back, OpenClaw's write then lands", async () => {
    const s = setup();
    const before = hashTree(s.stateDir);
    let write: ReturnType<typeof beginStoreWrite> | null = null;
    const err = await applyPausing(s, "place-transcript", () => {
      write = beginStoreWrite(s.storePath, touch, openclaw.pid!);
    });
    refusedWith(err, "STORE_WRITE_IN_FLIGHT");
    write!.commit();
    const now = hashTree(s.stateDir);
    expect({ ...now, "agents/main/sessions/sessions.json": "x" }).toEqual({ ...before, "agents/main/sessions/sessions.json": "x" });
    expect(JSON.parse(fs.readFileSync(s.storePath, "utf8"))["agent:main:main"].updatedAt).toBe(1_900_000_000_000);
  });

  it("landing before restore's store write: refused (STORE_CHANGED), rolled back, OpenClaw's write kept", async () => {
    const s = setup();
    const err = await applyPausing(s, "place-transcript", () => beginStoreWrite(s.storePath, touch, openclaw.pid!).commit());
    refusedWith(err, "STORE_CHANGED");
    const store = JSON.parse(fs.readFileSync(s.storePath, "utf8"));
    expect(store["agent:main:main"].updatedAt).toBe(1_900_000_000_000);
    expect(store[KEY].sessionId).toBe(GEN4);
    expect(fs.existsSync(s.current)).toBe(true);
    expect(fs.existsSync(path.join(s.sessions, DEST))).toBe(false);
  });

  it("landing right after restore's rename (read before it): reported (exit 5, CHANGED_DURING_RESTORE), never 'restored'; the write is kept", async () => {
    const s = setup();
    let stale: ReturnType<typeof beginStoreWrite> | null = null;
    const planned = await planRestore(s.opts, s.ctx);
    const err = await applyRestore(planned, {
      ...s.ctx,
      onStep: (p) => {
        if (p === "archive-current") stale = beginStoreWrite(s.storePath, touch, 999_999_999); // read the old store, pid gone
        if (p === "write-store") stale!.commit(); // its rename lands after ours
      },
    }).catch((e: unknown) => e);
    refusedWith(err, "CHANGED_DURING_RESTORE");
    expect((err as ToolError).message).toContain(`${KEY}.sessionId is "${GEN4}"`);
    const store = JSON.parse(fs.readFileSync(s.storePath, "utf8"));
    expect(store["agent:main:main"].updatedAt).toBe(1_900_000_000_000);
    const manifest = JSON.parse(fs.readFileSync(planned.plan.manifestPath, "utf8"));
    expect(manifest.status).toBe("unverified");
  });
});

describe("a running OpenClaw 7.1 gateway", () => {
  function gatewayLock(s: ReturnType<typeof setup>, pid: number, startTime: number | null) {
    const dir = path.join(s.root, "tmp", `openclaw-${process.getuid!()}`);
    fs.mkdirSync(dir, { recursive: true });
    const configPath = path.join(s.stateDir, "openclaw.json");
    const name = `gateway.${crypto.createHash("sha256").update(configPath).digest("hex").slice(0, 8)}.lock`;
    fs.writeFileSync(
      path.join(dir, name),
      JSON.stringify({ pid, createdAt: new Date().toISOString(), configPath, ...(startTime !== null ? { startTime } : {}) }),
    );
    return path.join(dir, name);
  }
  const startTimeOf = (pid: number) => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  };

  it("starting mid-run (after the backup): the next step refuses (exit 5), the store untouched", async () => {
    const s = setup();
    const before = hashTree(s.stateDir);
    const err = await applyPausing(s, "backup-store", () => gatewayLock(s, openclaw.pid!, startTimeOf(openclaw.pid!)));
    refusedWith(err, "GATEWAY_RUNNING");
    expect((err as ToolError).message).toContain(`pid ${openclaw.pid}`);
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});

// OpenClaw 2026.7.1's own lock code, where `npm run conformance` installed it (the run's global
// setup names that cache) or OPENCLAW_SESSIONS_OPENCLAW71 names a package dir; the tests above do not need it.
const OC71 = path.join(
  process.env.OPENCLAW_SESSIONS_OPENCLAW71 ??
    path.join(process.env.OPENCLAW_SESSIONS_CONFORMANCE_CACHE ?? "", "2026.7.1", "node_modules", "openclaw"),
  "dist",
);
const oc71Lock = fs.existsSync(OC71)
  ? fs
      .readdirSync(OC71)
      .find(
        (n) =>
          /^session-write-lock-.*\.js$/.test(n) &&
          fs.readFileSync(path.join(OC71, n), "utf8").includes("async function acquireSessionWriteLock"),
      )
  : undefined;

function openclawAcquire(transcript: string): Promise<string> {
  const script = `const m = await import(${JSON.stringify(path.join(OC71, oc71Lock ?? ""))});
try { const l = await m.t({ sessionFile: ${JSON.stringify(transcript)}, timeoutMs: 1500 }); await l.release(); console.log("acquired"); }
catch (e) { console.log(e.name); }
process.exit(0);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", () => resolve(out.trim()));
  });
}

describe.skipIf(!oc71Lock)("OpenClaw 2026.7.1's own acquireSessionWriteLock against restore's lock", () => {
  it("waits while restore holds the lock (its owner check accepts it), and gets it once released", async () => {
    const s = setup();
    const held = acquireTranscriptLock(s.current);
    let whileHeld: string;
    try {
      whileHeld = await openclawAcquire(s.current);
    } finally {
      releaseTranscriptLock(held);
    }
    expect(whileHeld).toBe("SessionWriteLockTimeoutError");
    expect(await openclawAcquire(s.current)).toBe("acquired");
  });
});
