import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { refusedError } from "../../src/core/errors.js";
import { environmentFailure } from "../../src/store/env-errors.js";

/** A real fs error of the given errno (as Node raises it), without needing that condition. */
function errnoError(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, errno: -1, syscall: "open", path });
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
