/** Only regular files are opened, never blocking; what cannot be read is named and remembered. */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  causeAt,
  checkRegular,
  listDirSync,
  noteUnreadable,
  openRegular,
  openRegularSync,
  readRegularFileSync,
  UnreadableFileError,
  UnreadableLog,
} from "../../src/store/safe-read.js";
import { fileLines, zstdChunks, zstdFrameProblem } from "../../src/store/lines.js";
import { cli } from "../helpers/cli.js";
import { copyState } from "../helpers/corpus.js";
import { listenSocket, mkfifo, zstdBomb } from "../hostile/inputs.js";
import { tempDir } from "../helpers/temp.js";

let dir: string;
beforeEach(() => {
  dir = tempDir("ocs-safe-");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("opening only regular files", () => {
  it("refuses a FIFO without blocking, by name, and remembers it once", async () => {
    const fifo = path.join(dir, "a.jsonl");
    mkfifo(fifo);
    const log = new UnreadableLog();
    await log.run(async () => {
      expect(() => openRegularSync(fifo)).toThrow(/a FIFO \(named pipe\), not a regular file/);
      await expect(openRegular(fifo)).rejects.toBeInstanceOf(UnreadableFileError);
    });
    expect(log.files()).toEqual([{ path: fifo, cause: "a FIFO (named pipe), not a regular file; not opened" }]);
    // The next run starts with an empty log; a read outside any run notes nowhere.
    const next = new UnreadableLog();
    await next.run(async () => undefined);
    await expect(openRegular(fifo)).rejects.toBeInstanceOf(UnreadableFileError);
    expect(next.files()).toEqual([]);
    expect(log.files()).toHaveLength(1);
  });

  it("opens a file its caller's walk found regular with no stat first, and still refuses what replaced it since, unblocked", () => {
    const file = path.join(dir, "t.jsonl");
    fs.writeFileSync(file, "0123456789");
    const fd = openRegularSync(file, undefined, true);
    try {
      const buf = Buffer.alloc(10);
      expect(fs.readSync(fd, buf, 0, 10, 0)).toBe(10);
      expect(buf.toString()).toBe("0123456789");
    } finally {
      fs.closeSync(fd);
    }
    // The limit holds as it did: told by the fstat after the open.
    expect(() => openRegularSync(file, 3, true)).toThrow(/10 bytes, over the 3-byte limit/);
    // Replaced by a FIFO after the walk looked: opened without blocking (no writer), then refused.
    fs.rmSync(file);
    mkfifo(file);
    expect(() => openRegularSync(file, undefined, true)).toThrow(/a FIFO \(named pipe\), not a regular file/);
  });

  it("names a socket, a symlink to a device and a symlink loop", async () => {
    const sock = path.join(dir, "s.jsonl");
    const server = await listenSocket(sock);
    const dev = path.join(dir, "d.jsonl");
    fs.symlinkSync("/dev/zero", dev);
    const loop = path.join(dir, "l.jsonl");
    fs.symlinkSync(loop, loop);
    try {
      expect(() => checkRegular(sock)).toThrow(/a socket/);
      expect(() => checkRegular(dev)).toThrow(/a character device/);
      expect(() => checkRegular(loop)).toThrow(/a symlink loop/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("bounds a whole-file read", () => {
    const big = path.join(dir, "sessions.json");
    fs.writeFileSync(big, "x".repeat(2000));
    expect(readRegularFileSync(big, 4096).length).toBe(2000);
    expect(() => readRegularFileSync(big, 1000)).toThrow(/2000 bytes, over the 1000-byte limit/);
  });

  it("a transcript that cannot be opened is one read-error line naming the cause", async () => {
    const fifo = path.join(dir, "b.jsonl");
    mkfifo(fifo);
    const lines = [];
    for await (const l of fileLines(fifo)) lines.push(l);
    expect(lines).toMatchObject([{ lineNo: 1, text: null, readError: expect.stringMatching(/FIFO/) }]);
  });
});

describe("bounded zstd", () => {
  it("knows zstd from not-zstd and refuses windows over 128 MiB", () => {
    expect(zstdFrameProblem(Buffer.from("plain text\n"))).toBe("not a zstd stream");
    expect(zstdFrameProblem(zstdBomb(1024))).toBeNull();
    // single segment, 4-byte content size of 1 GiB: the window is the whole content
    const single = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0b1010_0000, 0, 0, 0, 0x40]);
    expect(zstdFrameProblem(single)).toMatch(/1024 MiB window, over the 128 MiB limit/);
  });

  it("stops a bomb after a bounded amount of output", async () => {
    const file = path.join(dir, "bomb.jsonl.zst");
    fs.writeFileSync(file, zstdBomb(1024 * 1024 * 1024));
    const lines: Array<{ readError?: string }> = [];
    const log = new UnreadableLog();
    await log.run(async () => {
      for await (const l of fileLines(file, { compression: "zstd" })) lines.push(l);
    });
    expect(lines.at(-1)?.readError).toMatch(/zstd bomb; read stopped/);
    expect(log.files().map((u) => u.path)).toEqual([file]);
  });

  it("still reads a real zstd transcript", async () => {
    const native = (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync;
    const text = '{"type":"session","id":"x"}\n{"type":"message","id":"a"}\n';
    // Without a native compressor, a raw-block frame written by hand (type 0, last block).
    const frame = native
      ? native(Buffer.from(text))
      : Buffer.concat([
          Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 - 10) << 3]),
          (() => {
            const h = Buffer.alloc(3);
            h.writeUIntLE(1 | (0 << 1) | (Buffer.byteLength(text) << 3), 0, 3);
            return h;
          })(),
          Buffer.from(text),
        ]);
    async function* one() {
      yield frame;
    }
    let out = "";
    for await (const c of zstdChunks(one())) out += c.toString();
    expect(out).toBe(text);
  });
});

describe("an unreadable store: the same message in every command", () => {
  it("history, timeline, ls <key>, export and grep --key say STORE_UNREADABLE with the cause, exit 3", async () => {
    const { stateDir, root } = copyState("files", "single-active");
    const store = path.join(stateDir, "agents/main/sessions/sessions.json");
    fs.rmSync(store);
    mkfifo(store);
    const s = ["--state-dir", stateDir];
    const messages: string[] = [];
    for (const argv of [
      ["history", "agent:main:main", "--json"],
      ["timeline", "agent:main:main", "--json"],
      ["ls", "agent:main:main", "--json"],
      ["grep", "x", "--key", "agent:main:main", "--json"],
      ["export", "agent:main:main", "--format", "jsonl"],
    ]) {
      const r = await cli([...argv, ...s]);
      expect(r.code, argv.join(" ")).toBe(3);
      if (argv.includes("--json")) expect(r.json().error.code, argv.join(" ")).toBe("STORE_UNREADABLE");
      messages.push(r.stderr.split("\n").find((l) => l.includes("empty store")) ?? "");
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(/sessions\.json is unreadable \(a FIFO \(named pipe\), not a regular file; not opened\)/);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("what cannot be read, named once", () => {
  it("a directory that cannot be listed is noted and thrown, never empty; a missing one is null", async () => {
    const file = path.join(dir, "not-a-dir");
    fs.writeFileSync(file, "x");
    const log = new UnreadableLog();
    await log.run(async () => {
      expect(listDirSync(path.join(dir, "missing"))).toBeNull();
      expect(() => listDirSync(file)).toThrow(UnreadableFileError);
      expect(listDirSync(dir)?.map((d) => d.name)).toEqual(["not-a-dir"]);
    });
    expect(log.files()).toEqual([{ path: file, cause: "a path through something that is not a directory" }]);
  });

  it("a dangling symlink is named as one, a missing name as missing", () => {
    const dangling = path.join(dir, "dangling.jsonl");
    fs.symlinkSync(path.join(dir, "gone.jsonl"), dangling);
    const enoent = (p: string) => {
      try {
        fs.statSync(p);
      } catch (err) {
        return err;
      }
    };
    expect(causeAt(dangling, enoent(dangling))).toBe("a dangling symlink");
    expect(causeAt(path.join(dir, "none"), enoent(path.join(dir, "none")))).toBe("no such file");
    expect(() => checkRegular(dangling)).toThrow(/a dangling symlink/);
  });

  it("a dir and a path in it that failed for the same cause are one line: the dir's, or the error's that named one", async () => {
    const log = new UnreadableLog();
    const denied = (p: string) => noteUnreadable(p, Object.assign(new Error("EACCES"), { code: "EACCES" }));
    await log.run(async () => {
      denied("/s/sessions/sessions.json");
      denied("/s/sessions");
      denied("/s/sessions/a.jsonl");
      noteUnreadable("/s/sessions/b.jsonl", new UnreadableFileError("/s/sessions/b.jsonl", "a FIFO (named pipe)"));
      denied("/s/sessionsX/c.jsonl");
    });
    const paths = (named?: string[]) => log.files(named).map((u) => u.path);
    expect(paths()).toEqual(["/s/sessions", "/s/sessions/b.jsonl", "/s/sessionsX/c.jsonl"]);
    // An error named sessions.json (the store loaded as empty): its dir, unreadable the same way, is no second line.
    expect(paths(["/s/sessions/sessions.json"])).toEqual(["/s/sessions/b.jsonl", "/s/sessionsX/c.jsonl"]);
    expect(paths(["/s/sessions/b.jsonl"])).toEqual(["/s/sessions", "/s/sessionsX/c.jsonl"]);
  });
});
