import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { refusedError } from "../../src/core/errors.js";
import { DatabaseSync } from "node:sqlite";
import path from "node:path";
import { environmentErrorOf, environmentFailure, sqliteFailure } from "../../src/store/env-errors.js";
import { UnreadableFileError } from "../../src/store/safe-read.js";
import { tempDir } from "../helpers/temp.js";

/** A real fs error of the given errno (as Node raises it), without needing that condition. */
function errnoError(code: string, path: string, syscall = "open"): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, ${syscall} '${path}'`), { code, errno: -1, syscall, path });
}

describe("environment failures of a write", () => {
  it("ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EXDEV become named environment errors (exit 3) naming the file", () => {
    const named = Object.fromEntries(
      ["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EXDEV"].map((c) => {
        const e = environmentFailure(errnoError(c, "/s/x.tmp"), "restore")!;
        expect(e.exitCode).toBe(3);
        expect(e.message).toContain("/s/x.tmp");
        expect(e.message).toContain(c);
        expect(e.hint).toBeTruthy();
        return [c, e.code];
      }),
    );
    expect(named).toEqual({
      ENOSPC: "DISK_FULL",
      EDQUOT: "DISK_FULL",
      EROFS: "READ_ONLY_FILESYSTEM",
      EACCES: "PERMISSION_DENIED",
      EPERM: "PERMISSION_DENIED",
      EXDEV: "CROSS_DEVICE",
    });
  });

  it("other errors and the tool's own refusals pass through", () => {
    let enoent: unknown;
    try {
      fs.readFileSync("/nonexistent/for/sure");
    } catch (err) {
      enoent = err;
    }
    expect(environmentFailure(enoent, "restore")).toBeNull();
    expect(environmentFailure(refusedError("LIVE_LOCK", "x"), "restore")).toBeNull();
    expect(environmentFailure(new Error("boom"), "restore")).toBeNull();
  });
});

/** The error a real fs call throws. */
function thrown(act: () => unknown): unknown {
  try {
    act();
  } catch (err) {
    return err;
  }
  throw new Error("did not throw");
}

describe("environment errors on every path: environmentErrorOf (the boundary's fallback)", () => {
  it("a read the OS refuses is 'cannot read <path>: <cause>' (FILE_UNREADABLE, exit 3)", () => {
    const dir = tempDir("ocs-env-read-");
    const loop = path.join(dir, "loop");
    fs.symlinkSync(loop, loop);
    const dangling = path.join(dir, "dangling");
    fs.symlinkSync(path.join(dir, "gone"), dangling);
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "x");
    const cases: Array<[unknown, string]> = [
      [thrown(() => fs.readFileSync(loop)), `cannot read ${loop}: a symlink loop`],
      [thrown(() => fs.statSync(dangling)), `cannot read ${dangling}: a dangling symlink`],
      [thrown(() => fs.readdirSync(file)), `cannot read ${file}: a path through something that is not a directory`],
      [
        thrown(() => fs.readFileSync(path.join(file, "below"))),
        `cannot read ${path.join(file, "below")}: a path through something that is not a directory`,
      ],
      [errnoError("EACCES", "/s/sessions", "scandir"), "cannot read /s/sessions: permission denied"],
      [errnoError("EIO", "/s/a.jsonl", "read"), "cannot read /s/a.jsonl: I/O error"],
    ];
    for (const [err, message] of cases) {
      const e = environmentErrorOf(err)!;
      expect(e).toBeInstanceOf(UnreadableFileError);
      expect([e.code, e.message, e.exitCode]).toEqual(["FILE_UNREADABLE", message, 3]);
    }
  });

  it("a write's errno keeps its named code; EIO, EMFILE and EFBIG are named too", () => {
    const code = (errno: string, syscall: string) => environmentErrorOf(errnoError(errno, "/s/x", syscall))?.code;
    expect(code("ENOSPC", "write")).toBe("DISK_FULL");
    expect(code("EROFS", "rename")).toBe("READ_ONLY_FILESYSTEM");
    expect(code("EACCES", "mkdir")).toBe("PERMISSION_DENIED");
    expect(code("EIO", "fsync")).toBe("IO_ERROR");
    expect(code("EMFILE", "open")).toBe("TOO_MANY_OPEN_FILES");
    expect(code("EFBIG", "write")).toBe("FILE_TOO_LARGE");
  });

  it("the tool's own bugs stay unexpected: no errno, or one a read of the environment does not produce", () => {
    expect(environmentErrorOf(new TypeError("x is undefined"))).toBeNull();
    expect(environmentErrorOf(errnoError("EBADF", "/s/x", "read"))).toBeNull();
    expect(environmentErrorOf(refusedError("LIVE_LOCK", "x"))?.code).toBe("LIVE_LOCK");
  });

  it("a damaged SQLite database is SQLITE_UNREADABLE naming it; a query's own mistake is not", () => {
    const dir = tempDir("ocs-env-sqlite-");
    const file = path.join(dir, "db.sqlite");
    fs.writeFileSync(file, Buffer.alloc(8192, 0x41)); // no SQLite header: SQLITE_NOTADB
    const notadb = thrown(() => new DatabaseSync(file, { readOnly: true }).prepare("SELECT 1 FROM sqlite_master").get());
    const e = sqliteFailure(notadb, file)!;
    expect([e.code, e.exitCode, e.message]).toEqual(["SQLITE_UNREADABLE", 3, `cannot read ${file}: file is not a database`]);
    expect(e.details).toMatchObject({ sqliteCode: "SQLITE_NOTADB", storePath: file });
    expect(environmentErrorOf(notadb)?.message).toBe("cannot read a SQLite database: file is not a database");
    const fine = new DatabaseSync(":memory:");
    const syntax = thrown(() => fine.prepare("SELEC 1").get());
    expect(sqliteFailure(syntax, file)).toBeNull();
    expect(environmentErrorOf(syntax)).toBeNull();
  });
});
