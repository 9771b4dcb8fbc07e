/**
 * Generates a large synthetic file-backed store in OpenClaw 7.1's real naming: keys with an
 * active transcript and reset archives linked through usageFamilySessionIds, gateway-reset
 * archives linked by nothing, deleted archives, orphans, locks. Deterministic (seeded).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

function rng(seed: number) {
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

export function generateStore(root: string, opts: { keys: number; seed?: number }): GeneratedStore {
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
    const generations = 2 + Math.floor(rand() * 2); // 2–3 resets
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
    };
  }
  fs.writeFileSync(path.join(sessionsDir, "sessions.json"), JSON.stringify(store, null, 2), { mode: 0o600 });
  files += 1;
  return { stateDir, sessionsDir, keys: opts.keys, files };
}
