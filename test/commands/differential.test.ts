/**
 * Randomized differential test: seeded random histories of one key written the way OpenClaw 7.1
 * writes them (turns, `/new` resets that archive the transcript under a new sessionId, gateway
 * `sessions.compact {maxLines}` trims that keep the header and the last lines and leave the whole
 * file in `.bak.<ts>`, a store moved to another root), then compared with what the generator knows
 * it wrote: `history --archived` holds every message once in write order, default `history` is the
 * live file (nothing when the store moved), `timeline` counts every reset. DIFF_SEEDS=500 for a
 * longer run.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { seeded, type Rand } from "../hostile/mutations.js";
import { tempDir } from "../helpers/temp.js";

const SEEDS = Number(process.env.DIFF_SEEDS ?? 30);
const BASE = Date.parse("2026-07-01T09:00:00.000Z");
const KEY = "agent:main:main";

const stamp = (ms: number) => new Date(ms).toISOString().replace(/:/g, "-");
const uuid = (rand: Rand) => "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => Math.floor(rand() * 16).toString(16));

interface World {
  sessions: string;
  now: number;
  sessionId: string;
  /** Lines of the live file, header first. */
  live: string[];
  written: string[];
  resets: number;
  trims: number;
  n: number;
}

function header(w: World): string {
  return JSON.stringify({ type: "session", version: 3, id: w.sessionId, timestamp: new Date(w.now).toISOString(), cwd: "/tmp" });
}

function liveFile(w: World): string {
  return path.join(w.sessions, `${w.sessionId}.jsonl`);
}

function flush(w: World): void {
  fs.writeFileSync(liveFile(w), `${w.live.join("\n")}\n`);
}

function turn(w: World, rand: Rand): void {
  for (const role of ["user", "assistant"] as const) {
    w.now += 1000 + Math.floor(rand() * 60_000);
    const last = w.live.length > 1 ? (JSON.parse(w.live.at(-1)!) as { id: string }).id : null;
    const id = `m${(w.n += 1)}`;
    const content = role === "user" ? `question ${w.n}` : [{ type: "text", text: `answer ${w.n}` }];
    w.live.push(
      JSON.stringify({ type: "message", id, parentId: last, timestamp: new Date(w.now).toISOString(), message: { role, content } }),
    );
    w.written.push(id);
  }
  flush(w);
}

function reset(w: World, rand: Rand): void {
  w.now += 60_000;
  fs.renameSync(liveFile(w), `${liveFile(w)}.reset.${stamp(w.now)}`);
  w.sessionId = uuid(rand);
  w.live = [header(w)];
  w.resets += 1;
  flush(w);
}

function trim(w: World, rand: Rand): void {
  const entries = w.live.slice(1);
  if (entries.length < 3) return;
  w.now += 1000;
  fs.copyFileSync(liveFile(w), `${liveFile(w)}.bak.${stamp(w.now)}`);
  const keep = 1 + Math.floor(rand() * (entries.length - 1));
  const kept = entries.slice(-keep).map((l, i) => (i === 0 ? JSON.stringify({ ...JSON.parse(l), parentId: null }) : l));
  w.live = [w.live[0]!, ...kept];
  w.trims += 1;
  flush(w);
}

function generate(seed: number) {
  const rand = seeded(seed);
  const root = tempDir("ocs-diff-");
  const stateDir = path.join(root, "state");
  const sessions = path.join(stateDir, "agents/main/sessions");
  fs.mkdirSync(sessions, { recursive: true });
  const w: World = { sessions, now: BASE + seed * 1000, sessionId: uuid(rand), live: [], written: [], resets: 0, trims: 0, n: 0 };
  w.live = [header(w)];
  turn(w, rand);
  const ops = 4 + Math.floor(rand() * 16);
  for (let i = 0; i < ops; i++) {
    const r = rand();
    if (r < 0.6) turn(w, rand);
    else if (r < 0.8) trim(w, rand);
    else reset(w, rand);
  }
  turn(w, rand); // the current session has started
  const moved = rand() < 0.5;
  const sessionFile = moved ? `/old/root/.openclaw/agents/main/sessions/${w.sessionId}-topic-7.jsonl` : liveFile(w);
  if (moved) fs.renameSync(liveFile(w), path.join(sessions, path.basename(sessionFile)));
  fs.writeFileSync(
    path.join(sessions, "sessions.json"),
    JSON.stringify({ [KEY]: { sessionId: w.sessionId, sessionFile, updatedAt: w.now } }, null, 2),
  );
  const liveIds = w.live.slice(1).map((l) => (JSON.parse(l) as { id: string }).id);
  return { root, stateDir, written: w.written, liveIds, moved, resets: w.resets, trims: w.trims };
}

describe(`randomized differential: generated stores vs the generator's record (${SEEDS} seeds)`, () => {
  it("every check holds", async () => {
    const failures: string[] = [];
    let checks = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const g = generate(seed);
      const s = ["--state-dir", g.stateDir, "--json"];
      const env = { HOME: path.join(g.root, "home") };
      const check = (ok: boolean, what: string) => {
        checks += 1;
        if (!ok) failures.push(`seed ${seed} (moved ${g.moved}, ${g.resets} resets, ${g.trims} trims): ${what}`);
      };
      const archived = (await cli(["history", KEY, "--archived", ...s], { env })).json();
      const ids = archived.messages.map((m: { id: string }) => m.id);
      check(JSON.stringify(ids) === JSON.stringify(g.written), `--archived ids ${ids.join(",")} != written ${g.written.join(",")}`);
      const current = (await cli(["history", KEY, ...s], { env })).json();
      const want = g.moved ? [] : g.liveIds;
      check(
        JSON.stringify(current.messages.map((m: { id: string }) => m.id)) === JSON.stringify(want),
        "default history is not the live file (or nothing when moved)",
      );
      const t = (await cli(["timeline", KEY, ...s, "--tz", "UTC"], { env })).json();
      check(t.resets === g.resets, `timeline resets ${t.resets} != ${g.resets}`);
      check(t.segments.at(-1)?.current === true, "the last segment is not current");
      check(!t.notes.some((n: string) => /has no transcript on disk/.test(n)), "timeline says the current sessionId has no transcript");
      if (process.env.DIFF_KEEP) console.log(`seed ${seed}: ${g.root}`);
      else fs.rmSync(g.root, { recursive: true, force: true });
    }
    console.log(`randomized differential: ${checks - failures.length} of ${checks} checks hold`);
    expect(failures.slice(0, 10)).toEqual([]);
  }, 120_000);
});
