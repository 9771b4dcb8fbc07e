/**
 * The crash matrix: the real CLI, in a child process, is killed (SIGKILL, no cleanup) right after
 * each step of a restore. After every crash: sessions.json is valid JSON, OpenClaw's rule still
 * finds a transcript for the key, and every original file's bytes are in some file. Then a rerun of
 * `restore --yes` completes, and undoing the rerun and then the crashed run gives back the
 * original store byte for byte. The second matrix kills `restore --undo` at each of its points: a
 * rerun of the same undo completes and gives back the original store byte for byte.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree, scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { projectHistory } from "../../src/core/transcript/history.js";
import { fileLines } from "../../src/store/lines.js";
import { runUndo } from "../../src/commands/restore.js";

const KEY = "agent:main:telegram:direct:424242";
const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";

// The built CLI (test/helpers/global-setup.ts builds it once per run): tsx start-up per child would dominate.
const bundle = BIN;
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

function allHashes(...dirs: string[]): Set<string> {
  const out = new Set<string>();
  for (const d of dirs) if (fs.existsSync(d)) for (const h of Object.values(hashTree(d))) out.add(h);
  return out;
}

async function historySource(stateDir: string, home: string) {
  const [index] = await storeContext({ env: { HOME: home }, cwd: stateDir }).session.indexes({ stateDir });
  return index!.sessions.find((s) => s.sessionKey === KEY)!.historySource;
}

/** Undo the rerun (if it wrote a run of its own), then the crashed run. */
async function undoRerunsThenCrashed(manifests: string, crashedRunDir: string, home: string): Promise<void> {
  const others = fs.readdirSync(manifests).filter((d) => d !== crashedRunDir);
  for (const d of [...others, crashedRunDir]) {
    const u = await cli(["restore", "--undo", path.join(manifests, d, "manifest.json"), "--yes"], { env: { HOME: home } });
    expect(u.code, u.stderr).toBe(0);
  }
}

const archiveItems = async () => {
  const { items } = await projectHistory(() =>
    fileLines(path.join(scenarioDir("files", "reset-chain"), "state/agents/main/sessions", GEN3)),
  );
  return items.map((i) => i.text);
};

const POINTS: Array<{ point: string; move?: boolean; rerun: boolean }> = [
  { point: "backup-store", rerun: true },
  { point: "archive-current:linked", rerun: true },
  { point: "archive-current", rerun: true },
  { point: "place-transcript:temp", rerun: true },
  { point: "place-transcript", rerun: true },
  { point: "write-store", rerun: true },
  { point: "backup-archive", move: true, rerun: true },
  { point: "remove-archive", move: true, rerun: true },
];

describe("restore crash matrix (reset-chain, gen 3 archive)", () => {
  for (const { point, move, rerun } of POINTS) {
    it.concurrent(`killed after ${point}${move ? " (--move)" : ""}`, async () => {
      const s = copyState("files", "reset-chain");
      roots.push(s.root);
      const sessions = path.join(s.stateDir, "agents/main/sessions");
      const manifests = path.join(s.root, "manifests");
      const original = hashTree(s.stateDir);
      const args = ["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, GEN3, "--yes", ...(move ? ["--move"] : [])];

      const crashed = await runChild(args, { HOME: s.home, OPENCLAW_SESSIONS_CRASH_AFTER: point });
      expect(crashed.signal, crashed.stderr).toBe("SIGKILL");

      // Invariant 1: sessions.json is always a valid JSON object OpenClaw can load.
      const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
      expect(typeof store).toBe("object");
      expect(store[KEY]).toBeDefined();
      // OpenClaw still finds a transcript for the key (active file or its reset-archive fallback).
      expect((await historySource(s.stateDir, s.home)).ref).not.toBeNull();
      // Invariant 2: every original byte is in some file (in the store, or the backup next to the manifest).
      const now = allHashes(s.stateDir, manifests);
      for (const [file, h] of Object.entries(original)) expect(now.has(h), `${file} lost after ${point}`).toBe(true);
      // No temp file an OpenClaw glob would count.
      for (const n of fs.readdirSync(sessions)) if (n.endsWith(".tmp")) expect(n.startsWith(".")).toBe(true);

      const [runDir] = fs.readdirSync(manifests);
      const crashedManifest = path.join(manifests, runDir!, "manifest.json");
      expect(fs.existsSync(crashedManifest)).toBe(true);

      if (rerun) {
        const again = await cli(args, { env: { HOME: s.home } });
        expect(again.code, again.stderr).toBe(0);
        const src = await historySource(s.stateDir, s.home);
        expect(src.via).toBe("active");
        const { session } = storeContext({ env: { HOME: s.home }, cwd: s.stateDir });
        const { items } = await projectHistory(() => session.lines(src.ref!));
        expect(items.map((i) => i.text)).toEqual(await archiveItems());
      }
      await undoRerunsThenCrashed(manifests, runDir!, s.home);
      expect(hashTree(s.stateDir)).toEqual(original);
    });
  }
});

/** Every point an undo of a `--move` restore passes, in order (the test below keeps this list true). */
const UNDO_POINTS = [
  "undo:remove-archive:temp",
  "undo:remove-archive:restore",
  "undo:write-store:temp",
  "undo:write-store:restore",
  "undo:place-transcript:delete",
  "undo:archive-current:restore",
  "undo:archive-current:delete",
];

async function restored(move: boolean) {
  const s = copyState("files", "reset-chain");
  roots.push(s.root);
  const manifests = path.join(s.root, "manifests");
  const original = hashTree(s.stateDir);
  const r = await cli(
    ["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, GEN3, "--yes", "--json", ...(move ? ["--move"] : [])],
    { env: { HOME: s.home } },
  );
  expect(r.code, r.stderr).toBe(0);
  return { ...s, manifests, original, manifest: r.json().manifest as string };
}

describe("undo crash matrix (reset-chain, gen 3 archive, --move)", () => {
  it("the matrix covers every point an undo passes", async () => {
    const s = await restored(true);
    const seen: string[] = [];
    await runUndo(s.manifest, true, { ...storeContext({ env: { HOME: s.home }, cwd: s.root }), onStep: (p) => seen.push(p) });
    expect(seen).toEqual(UNDO_POINTS);
    expect(hashTree(s.stateDir)).toEqual(s.original);
  });

  for (const point of UNDO_POINTS) {
    it.concurrent(`undo killed after ${point}; rerunning the same undo completes`, async () => {
      const s = await restored(true);
      const sessions = path.join(s.stateDir, "agents/main/sessions");
      const crashed = await runChild(["restore", "--undo", s.manifest, "--yes"], { HOME: s.home, OPENCLAW_SESSIONS_CRASH_AFTER: point });
      expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
      const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
      expect(store[KEY]).toBeDefined();
      expect((await historySource(s.stateDir, s.home)).ref).not.toBeNull();
      const now = allHashes(s.stateDir, s.manifests);
      for (const [file, h] of Object.entries(s.original)) expect(now.has(h), `${file} lost after ${point}`).toBe(true);

      const again = await cli(["restore", "--undo", s.manifest, "--yes"], { env: { HOME: s.home } });
      expect(again.code, again.stderr).toBe(0);
      expect(hashTree(s.stateDir)).toEqual(s.original);
      expect(fs.readdirSync(sessions).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      expect(fs.readdirSync(path.dirname(s.manifest)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      const third = await cli(["restore", "--undo", s.manifest, "--yes", "--json"], { env: { HOME: s.home } });
      expect(third.code, third.stderr).toBe(0);
      expect(third.json().actions.every((a: { action: string }) => a.action === "none")).toBe(true);
    });
  }
});

describe("check reports the tool's own leftovers", () => {
  it("a restore killed with its temp in place: RESTORE_INTERRUPTED and RESTORE_TEMP_LEFTOVER with the commands; gone after the undo", async () => {
    const s = copyState("files", "reset-chain");
    roots.push(s.root);
    const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
    const crashed = await runChild(["restore", "--state-dir", s.stateDir, GEN3, "--yes"], {
      ...env,
      OPENCLAW_SESSIONS_CRASH_AFTER: "place-transcript:temp",
    });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const check = await cli(["check", "--state-dir", s.stateDir, "--fast", "--json"], { env });
    const codes = check.json().findings.filter((f: { code: string }) => f.code.startsWith("RESTORE_"));
    const runs = path.join(env.XDG_STATE_HOME, "openclaw-sessions/restores");
    const [runId] = fs.readdirSync(runs);
    const manifest = path.join(runs, runId!, "manifest.json");
    expect(codes.map((f: { code: string }) => f.code).sort()).toEqual(["RESTORE_INTERRUPTED", "RESTORE_TEMP_LEFTOVER"]);
    for (const f of codes) {
      expect(f.hint).toContain(`openclaw-sessions restore --undo ${manifest} --yes`);
      expect(f.data.runId).toBe(runId);
    }
    expect(codes.find((f: { code: string }) => f.code === "RESTORE_INTERRUPTED").hint).toContain(
      `restore ${path.join(s.stateDir, "agents/main/sessions", GEN3)}`,
    );
    expect(check.code).toBe(1);

    // finishing it (rerun) clears both: the rerun removes the temp, the applied rerun supersedes the run
    const rerun = await cli(["restore", "--state-dir", s.stateDir, GEN3, "--yes"], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const finished = await cli(["check", "--state-dir", s.stateDir, "--fast", "--json"], { env });
    expect(finished.json().findings.filter((f: { code: string }) => f.code.startsWith("RESTORE_"))).toEqual([]);
    const rerunManifest = path.join(runs, fs.readdirSync(runs).find((d) => d !== runId)!, "manifest.json");
    expect((await cli(["restore", "--undo", rerunManifest, "--yes"], { env })).code).toBe(0);

    const undo = await cli(["restore", "--undo", manifest, "--yes"], { env });
    expect(undo.code, undo.stderr).toBe(0);
    const after = await cli(["check", "--state-dir", s.stateDir, "--fast", "--json"], { env });
    expect(after.json().findings.filter((f: { code: string }) => f.code.startsWith("RESTORE_"))).toEqual([]);
  });
});

/** Key creation (`--create-key`): an orphan re-attached in place, and a deleted key's archive placed. */
const CREATE_CASES = [
  {
    scenario: "orphans",
    source: "c822c754-948f-4e45-b54f-3b2dd1c378ad.jsonl",
    key: "agent:main:webchat:direct:lost",
    points: ["backup-store", "write-store"],
  },
  {
    scenario: "deleted-keys",
    source: "34071c90-44f6-448e-a7e8-82167f2d1319.jsonl.deleted.2026-07-01T09-10-15.000Z",
    key: "agent:main:discord:channel:2222",
    points: ["backup-store", "place-transcript:temp", "place-transcript", "write-store"],
  },
];

describe("restore --create-key crash matrix", () => {
  for (const c of CREATE_CASES) {
    for (const point of c.points) {
      it.concurrent(`${c.scenario}: killed after ${point}; a rerun completes, undo of both gives back the store`, async () => {
        const s = copyState("files", c.scenario);
        roots.push(s.root);
        const sessions = path.join(s.stateDir, "agents/main/sessions");
        const manifests = path.join(s.root, "manifests");
        const original = hashTree(s.stateDir);
        const args = ["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, c.source, "--key", c.key, "--create-key", "--yes"];
        const crashed = await runChild(args, { HOME: s.home, OPENCLAW_SESSIONS_CRASH_AFTER: point });
        expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
        // sessions.json is the old or the new complete file: the key is absent or has the entry restore writes.
        const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
        expect(store["agent:main:main"]).toBeDefined();
        if (point === "write-store") expect(store[c.key]?.sessionFile).toMatch(/\.jsonl$/);
        else expect(store[c.key]).toBeUndefined();
        const now = allHashes(s.stateDir, manifests);
        for (const [file, h] of Object.entries(original)) expect(now.has(h), `${file} lost after ${point}`).toBe(true);
        for (const n of fs.readdirSync(sessions)) if (n.endsWith(".tmp")) expect(n.startsWith(".")).toBe(true);
        const [runDir] = fs.readdirSync(manifests);

        const again = await cli(args, { env: { HOME: s.home } });
        expect(again.code, again.stderr).toBe(0);
        const { session } = storeContext({ env: { HOME: s.home }, cwd: s.stateDir });
        const [index] = await session.indexes({ stateDir: s.stateDir });
        const record = index!.sessions.find((x) => x.sessionKey === c.key)!;
        expect(record.historySource.via).toBe("active");
        const { items } = await projectHistory(() => session.lines(record.historySource.ref!));
        const { items: want } = await projectHistory(() =>
          fileLines(path.join(scenarioDir("files", c.scenario), "state/agents/main/sessions", c.source)),
        );
        expect(items.map((i) => i.text)).toEqual(want.map((i) => i.text));

        await undoRerunsThenCrashed(manifests, runDir!, s.home);
        expect(hashTree(s.stateDir)).toEqual(original);
      });
    }
  }
});
