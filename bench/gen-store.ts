/**
 * Generates a large synthetic file-backed store in OpenClaw 7.1's real naming: keys with an
 * active transcript and reset archives linked through usageFamilySessionIds, gateway-reset
 * archives linked by nothing, deleted archives, orphans, locks. Deterministic (seeded).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { generateTranscript } from "./gen-transcript.js";

export function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function uuid(rand: () => number): string {
  const b = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) b[i] = Math.floor(rand() * 256);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/:/g, "-");

function transcript(id: string, startMs: number, turns: number, rand: () => number): string {
  const lines = [
    JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(startMs).toISOString(), cwd: "/home/ana/.openclaw/workspace" }),
  ];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    const at = startMs + t * 60_000;
    const uid = crypto.randomBytes(4).toString("hex");
    lines.push(
      JSON.stringify({
        type: "message",
        id: uid,
        parentId: parent,
        timestamp: new Date(at).toISOString(),
        message: { role: "user", content: [{ type: "text", text: `question ${t} ${rand().toString(36)}` }], timestamp: at },
      }),
    );
    const aid = crypto.randomBytes(4).toString("hex");
    lines.push(
      JSON.stringify({
        type: "message",
        id: aid,
        parentId: uid,
        timestamp: new Date(at + 2000).toISOString(),
        message: {
          role: "assistant",
          content: [{ type: "text", text: `answer ${t} `.repeat(8) }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: { input: 100, output: 20 },
          stopReason: "stop",
          timestamp: at + 2000,
        },
      }),
    );
    parent = aid;
  }
  return `${lines.join("\n")}\n`;
}

export interface GeneratedStore {
  stateDir: string;
  sessionsDir: string;
  keys: number;
  files: number;
}

export interface StoreOptions {
  keys: number;
  seed?: number;
  /** Reset archives per key (default 2–3, seeded). */
  resets?: number;
  /** Fields added to the sessions.json entry of key number k (e.g. a large skillsSnapshot). */
  entryExtra?: (k: number) => Record<string, unknown>;
}

export function generateStore(root: string, opts: StoreOptions): GeneratedStore {
  const rand = rng(opts.seed ?? 42);
  const stateDir = path.join(root, "state");
  const sessionsDir = path.join(stateDir, "agents", "main", "sessions");
  fs.mkdirSync(sessionsDir, { recursive: true });
  const store: Record<string, unknown> = {};
  let files = 0;
  const write = (name: string, body: string) => {
    fs.writeFileSync(path.join(sessionsDir, name), body, { mode: 0o600 });
    files += 1;
  };
  const base = Date.parse("2026-06-01T00:00:00.000Z");
  for (let k = 0; k < opts.keys; k++) {
    const key =
      k % 3 === 0
        ? `agent:main:telegram:direct:${100000 + k}`
        : k % 3 === 1
          ? `agent:main:cron:job-${k}`
          : `agent:main:webchat:direct:user-${k}`;
    const generations = opts.resets ?? 2 + Math.floor(rand() * 2); // 2–3 resets
    const ids: string[] = [];
    let t = base + k * 3_600_000;
    for (let g = 0; g < generations; g++) {
      const id = uuid(rand);
      ids.push(id);
      write(`${id}.jsonl.reset.${stamp(t + 600_000)}`, transcript(id, t, 3, rand));
      t += 600_000;
    }
    const current = uuid(rand);
    write(`${current}.jsonl`, transcript(current, t, 4, rand));
    if (k % 50 === 0) write(`${current}.jsonl.lock`, JSON.stringify({ pid: 2147483647, createdAt: new Date(t).toISOString() }));
    if (k % 20 === 0) {
      const gone = uuid(rand);
      write(`${gone}.jsonl.deleted.${stamp(t)}`, transcript(gone, t - 86_400_000, 2, rand));
    }
    if (k % 25 === 0) {
      const orphan = uuid(rand);
      write(`${orphan}.jsonl`, transcript(orphan, t, 2, rand));
    }
    store[key] = {
      sessionId: current,
      updatedAt: t + 240_000,
      sessionStartedAt: t,
      lastInteractionAt: t + 240_000,
      // The first generation was archived by a gateway reset: referenced by nothing.
      usageFamilySessionIds: [...ids.slice(1), current],
      compactionCount: k % 4,
      sessionFile: `/home/ana/.openclaw/agents/main/sessions/${current}.jsonl`,
      chatType: "direct",
      ...opts.entryExtra?.(k),
    };
  }
  fs.writeFileSync(path.join(sessionsDir, "sessions.json"), JSON.stringify(store, null, 2), { mode: 0o600 });
  files += 1;
  return { stateDir, sessionsDir, keys: opts.keys, files };
}

const MiB = 1024 * 1024;

/**
 * The scale benches' store: 5,000 keys (about 18,000 files) plus one 300 MiB and one 60 MiB active
 * transcript, about 420 MB in all (bench/scale.ts, bench/index.ts).
 */
export function generateScaleStore(root: string): GeneratedStore & { bigKey: string; bigFile: string; bytes: number } {
  const s = generateStore(root, { keys: 5000 });
  const entries = readEntries(s.sessionsDir);
  const [bigKey, secondKey] = Object.keys(entries) as [string, string];
  const bigFile = path.join(s.sessionsDir, `${entries[bigKey]!.sessionId}.jsonl`);
  generateTranscript(bigFile, 300 * MiB, 7);
  generateTranscript(path.join(s.sessionsDir, `${entries[secondKey]!.sessionId}.jsonl`), 60 * MiB, 8);
  let bytes = 0;
  for (const name of fs.readdirSync(s.sessionsDir)) bytes += fs.statSync(path.join(s.sessionsDir, name)).size;
  return { ...s, bigKey, bigFile, bytes };
}

function readEntries(sessionsDir: string): Record<string, { sessionId: string; updatedAt?: number; lastInteractionAt?: number }> {
  return JSON.parse(fs.readFileSync(path.join(sessionsDir, "sessions.json"), "utf8"));
}

/** The id of a transcript's last entry and the role of its last message (read from its last 64 KiB). */
function tailOf(file: string): { id: string | null; role: string | null } {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    const lines = buf
      .toString("utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
    for (let i = lines.length - 1; i >= 0; i--) {
      try {
        const e = JSON.parse(lines[i]!);
        if (typeof e.id === "string") return { id: e.id, role: e.message?.role ?? null };
      } catch {
        // the first line of the window may be cut: look further back
      }
    }
    return { id: null, role: null };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One OpenClaw turn's worth of writes: 1–3 message lines appended to each of `count` random
 * active transcripts (`{"type":"message","id","parentId":<last id>,"timestamp","message":{role,
 * content,…}}`, user and assistant in turn), then sessions.json rewritten (temp + rename) with
 * those keys' updatedAt, as the gateway does after a turn. `text`, when given, goes into each user
 * message; `only`, when given, names the keys instead. Returns the keys touched.
 */
export function appendTurns(sessionsDir: string, count: number, rand: () => number, text?: string, only?: readonly string[]): string[] {
  const entries = readEntries(sessionsDir);
  const keys = Object.keys(entries);
  const picked = new Set<string>(only);
  while (only === undefined && picked.size < Math.min(count, keys.length)) picked.add(keys[Math.floor(rand() * keys.length)]!);
  const now = Date.now();
  for (const key of picked) {
    const file = path.join(sessionsDir, `${entries[key]!.sessionId}.jsonl`);
    let { id: parent, role } = tailOf(file);
    const lines: string[] = [];
    const n = 1 + Math.floor(rand() * 3);
    for (let i = 0; i < n; i++) {
      const at = now + i * 1000;
      const id = crypto.randomBytes(4).toString("hex");
      const user = role !== "user";
      const message = user
        ? { role: "user", content: [{ type: "text", text: text ?? `follow-up ${rand().toString(36)}` }], timestamp: at }
        : {
            role: "assistant",
            content: [{ type: "text", text: `reply ${rand().toString(36)} `.repeat(6) }],
            api: "anthropic-messages",
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            usage: { input: 100, output: 20 },
            stopReason: "stop",
            timestamp: at,
          };
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(at).toISOString(), message }));
      parent = id;
      role = message.role;
    }
    fs.appendFileSync(file, `${lines.join("\n")}\n`);
    entries[key]!.updatedAt = now;
    entries[key]!.lastInteractionAt = now;
  }
  const store = path.join(sessionsDir, "sessions.json");
  fs.writeFileSync(`${store}.tmp`, JSON.stringify(entries, null, 2), { mode: 0o600 });
  fs.renameSync(`${store}.tmp`, store);
  return [...picked];
}
