/**
 * Writes a realistic synthetic OpenClaw 7.1 transcript of about `bytes` bytes: a session header,
 * then turns of user message → assistant (thinking + tool call) → tool result → assistant reply,
 * with an abandoned branch every few hundred turns (a retry that re-parents to an older entry).
 * Deterministic (seeded), written in ~1 MiB batches so the generator itself stays small.
 */
import fs from "node:fs";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS =
  "the a repo file test build error fix run check config session agent tool result output line value node path write read list deploy branch merge commit".split(
    " ",
  );
const TOOLS = ["read", "bash", "ls", "grep", "edit", "web_fetch"];

export interface GenStats {
  bytes: number;
  lines: number;
  messages: number;
  branches: number;
}

export function generateTranscript(file: string, targetBytes: number, seed = 42): GenStats {
  const rand = rng(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
  const fd = fs.openSync(file, "w");
  let batch: string[] = [];
  let batchBytes = 0;
  const stats: GenStats = { bytes: 0, lines: 0, messages: 0, branches: 0 };
  let t = Date.parse("2026-07-01T09:00:00.000Z");
  const emit = (o: unknown) => {
    const line = `${JSON.stringify(o)}\n`;
    batch.push(line);
    batchBytes += line.length;
    stats.bytes += Buffer.byteLength(line);
    stats.lines += 1;
    if (batchBytes > 1 << 20) {
      fs.writeSync(fd, batch.join(""));
      batch = [];
      batchBytes = 0;
    }
  };
  let n = 0;
  const id = () => `e${(n++).toString(16).padStart(8, "0")}`;
  const msg = (parent: string | null, message: Record<string, unknown>) => {
    const entry = {
      type: "message",
      id: id(),
      parentId: parent,
      timestamp: new Date(t).toISOString(),
      message: { ...message, timestamp: t },
    };
    t += 500 + Math.floor(rand() * 4000);
    stats.messages += 1;
    emit(entry);
    return entry.id;
  };
  emit({
    type: "session",
    version: 3,
    id: "bench-0000-4000-8000-000000000000",
    timestamp: new Date(t).toISOString(),
    cwd: "/home/ana/.openclaw/workspace",
  });
  let leaf: string | null = null;
  let turn = 0;
  const usage = { input: 1200, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 1240 };
  while (stats.bytes < targetBytes) {
    turn += 1;
    // Every 300 turns: retry from two turns back, leaving the last two turns as an abandoned branch.
    if (turn % 300 === 0 && leaf) {
      const back = Number.parseInt(leaf.slice(1), 16) - 8;
      leaf = `e${Math.max(back, 0).toString(16).padStart(8, "0")}`;
      stats.branches += 1;
    }
    const tool = TOOLS[Math.floor(rand() * TOOLS.length)]!;
    const callId = `toolu_${turn}`;
    leaf = msg(leaf, { role: "user", content: [{ type: "text", text: words(8 + Math.floor(rand() * 40)) }] });
    leaf = msg(leaf, {
      role: "assistant",
      content: [
        { type: "thinking", thinking: words(20 + Math.floor(rand() * 60)), thinkingSignature: "sig" },
        { type: "toolCall", id: callId, name: tool, arguments: { path: `src/${words(1)}.ts`, command: words(4) } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage,
      stopReason: "toolUse",
    });
    // Tool output dominates real transcripts: 0.5–6 KB, now and then 40 KB.
    const size = rand() < 0.03 ? 40_000 : 500 + Math.floor(rand() * 5500);
    leaf = msg(leaf, {
      role: "toolResult",
      toolCallId: callId,
      toolName: tool,
      content: [{ type: "text", text: words(Math.ceil(size / 6)) }],
      isError: rand() < 0.05,
    });
    leaf = msg(leaf, {
      role: "assistant",
      content: [{ type: "text", text: words(15 + Math.floor(rand() * 80)) }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage,
      stopReason: "stop",
    });
  }
  if (batch.length) fs.writeSync(fd, batch.join(""));
  fs.closeSync(fd);
  return stats;
}
