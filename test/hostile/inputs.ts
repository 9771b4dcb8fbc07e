/**
 * Hostile files for the read commands, made on real file systems: FIFOs, a listening socket,
 * symlinks to a device and in a loop, a zstd bomb, a 100 MB single line, 100k-deep nesting, a
 * parentId cycle, a file without read permission and a `.zst` that is not zstd.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A zstd frame of RLE blocks: `bytes` copies of `byte` from ~4 bytes per 128 KiB (a 1 GiB line is 32 KB). */
export function zstdBomb(bytes: number, byte = 0x78): Buffer {
  const BLOCK = 128 * 1024;
  const blocks = Math.ceil(bytes / BLOCK);
  // magic, frame header descriptor (no single segment, no checksum), window descriptor 2^20
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 - 10) << 3])];
  const body = Buffer.alloc(blocks * 4);
  for (let i = 0; i < blocks; i++) {
    const size = Math.min(BLOCK, bytes - i * BLOCK);
    const last = i === blocks - 1 ? 1 : 0;
    const header = last | (1 << 1) | (size << 3); // RLE block
    body.writeUIntLE(header, i * 4, 3);
    body[i * 4 + 3] = byte;
  }
  parts.push(body);
  return Buffer.concat(parts);
}

/** A message line whose text is `n` bytes of "x", optionally with `needle` in the middle. */
export function hugeMessageLine(n: number, needle = ""): string {
  const half = Math.floor((n - needle.length) / 2);
  const text = "x".repeat(half) + needle + "x".repeat(n - needle.length - half);
  return JSON.stringify({
    type: "message",
    id: "huge1",
    parentId: null,
    timestamp: "2026-07-01T00:00:00.000Z",
    message: { role: "user", content: text },
  });
}

export function deepLine(depth: number): string {
  return `{"type":"message","id":"deep1","parentId":null,"timestamp":"2026-07-01T00:00:00.000Z","message":{"role":"user","content":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
}

export function cycleTranscript(id: string): string {
  const header = JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-07-01T00:00:00.000Z", cwd: "/tmp" });
  const a = JSON.stringify({
    type: "message",
    id: "c1",
    parentId: "c2",
    timestamp: "2026-07-01T00:00:01.000Z",
    message: { role: "user", content: "one" },
  });
  const b = JSON.stringify({
    type: "message",
    id: "c2",
    parentId: "c1",
    timestamp: "2026-07-01T00:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "two" }] },
  });
  return `${header}\n${a}\n${b}\n`;
}

export function mkfifo(p: string): void {
  execFileSync("mkfifo", [p]);
}

let socketCount = 0;

/**
 * A listening unix socket at `p`; close() when done. Bound at a short name in the same dir tree
 * and renamed into place: a socket's path must fit in 107 bytes, a temp store's rarely does.
 */
export async function listenSocket(p: string): Promise<net.Server> {
  const server = net.createServer((c) => c.destroy());
  const short = path.join(os.tmpdir(), `s${process.pid}-${socketCount++}`);
  await new Promise<void>((resolve) => server.listen(short, resolve));
  fs.renameSync(short, p);
  return server;
}

export type HostileKind =
  | "fifo-transcript"
  | "socket-transcript"
  | "symlink-to-device"
  | "symlink-loop"
  | "line-100mb"
  | "nesting-100k"
  | "parent-cycle"
  | "zstd-bomb"
  | "not-zstd"
  | "no-permission"
  | "fifo-store"
  | "device-store"
  | "huge-config";

export const HOSTILE_KINDS: HostileKind[] = [
  "fifo-transcript",
  "socket-transcript",
  "symlink-to-device",
  "symlink-loop",
  "line-100mb",
  "nesting-100k",
  "parent-cycle",
  "zstd-bomb",
  "not-zstd",
  "no-permission",
  "fifo-store",
  "device-store",
  "huge-config",
];

/** The active transcript of agent:main:main in the corpus store `single-active`. */
export const ACTIVE_ID = "1a88a76f-4669-4201-8889-bfd9a63beaf9";
const ID = ACTIVE_ID;
const ZST = `${ID}.jsonl.reset.2026-06-30T10-00-00.000Z.zst`;

/**
 * Plants one hostile input in the state dir; returns the path a report must name, and a cleanup
 * for what outlives the files (a socket server).
 */
export async function plant(kind: HostileKind, stateDir: string): Promise<{ file: string; close: () => Promise<void> }> {
  const sessions = path.join(stateDir, "agents/main/sessions");
  const none = async () => undefined;
  const at = (name: string) => path.join(sessions, name);
  // The key's own transcript is what gets replaced: every command then has to read it.
  if (!["fifo-store", "device-store", "huge-config"].includes(kind)) fs.rmSync(at(`${ID}.jsonl`), { force: true });
  switch (kind) {
    case "fifo-transcript":
      mkfifo(at(`${ID}.jsonl`));
      return { file: at(`${ID}.jsonl`), close: none };
    case "socket-transcript": {
      const server = await listenSocket(at(`${ID}.jsonl`));
      return { file: at(`${ID}.jsonl`), close: () => new Promise((r) => server.close(() => r())) };
    }
    case "symlink-to-device":
      fs.symlinkSync("/dev/zero", at(`${ID}.jsonl`));
      return { file: at(`${ID}.jsonl`), close: none };
    case "symlink-loop":
      fs.symlinkSync(at(`${ID}.jsonl`), at(`${ID}.jsonl`));
      return { file: at(`${ID}.jsonl`), close: none };
    case "line-100mb":
      fs.writeFileSync(at(`${ID}.jsonl`), `${hugeMessageLine(100 * 1024 * 1024)}\n`);
      return { file: at(`${ID}.jsonl`), close: none };
    case "nesting-100k":
      fs.writeFileSync(at(`${ID}.jsonl`), `${deepLine(100_000)}\n`);
      return { file: at(`${ID}.jsonl`), close: none };
    case "parent-cycle":
      fs.writeFileSync(at(`${ID}.jsonl`), cycleTranscript(ID));
      return { file: at(`${ID}.jsonl`), close: none };
    case "zstd-bomb":
      fs.writeFileSync(at(ZST), zstdBomb(1024 * 1024 * 1024));
      return { file: at(ZST), close: none };
    case "not-zstd":
      fs.writeFileSync(at(ZST), "this is not zstd\n");
      return { file: at(ZST), close: none };
    case "no-permission":
      fs.writeFileSync(at(`${ID}.jsonl`), cycleTranscript(ID));
      fs.chmodSync(at(`${ID}.jsonl`), 0);
      return { file: at(`${ID}.jsonl`), close: none };
    case "fifo-store":
      fs.rmSync(at("sessions.json"));
      mkfifo(at("sessions.json"));
      return { file: at("sessions.json"), close: none };
    case "device-store":
      fs.rmSync(at("sessions.json"));
      fs.symlinkSync("/dev/zero", at("sessions.json"));
      return { file: at("sessions.json"), close: none };
    case "huge-config": {
      const p = path.join(stateDir, "openclaw.json");
      const fd = fs.openSync(p, "w");
      const chunk = Buffer.from(`{"a": ${"[".repeat(1 << 20)}`);
      for (let i = 0; i < 8; i++) fs.writeSync(fd, chunk);
      fs.closeSync(fd);
      return { file: p, close: none };
    }
  }
}
