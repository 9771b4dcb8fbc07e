/**
 * Temp dirs a test file makes, removed when the file's tests end (test/helpers/cleanup.ts), so no
 * test has to remember to. The run's global setup fails the run if any dir is left over.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** A fresh dir in os.tmpdir(), named `<prefix>XXXXXX`, removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * A path in os.tmpdir() named like tempDir's but not made: whatever is made there is removed after
 * the file's tests, and a file whose tests all skip (no afterAll runs) leaves nothing behind.
 */
export function tempPathNotMade(prefix: string): string {
  const dir = path.join(os.tmpdir(), `${prefix}${crypto.randomBytes(6).toString("hex")}`);
  made.push(dir);
  return dir;
}

let home: string | null = null;

/**
 * The HOME of a run that must have none: a path of the file's, not made (so a command finds no
 * home), where whatever a run makes there (its cache, a shell's history) goes with the file's dirs.
 * The same path for every test of a file.
 */
export function homeNotMade(): string {
  home ??= tempPathNotMade("ocs-home-");
  return home;
}

/** Gives back owner access below `dir` (tests take permissions away), so it can be removed. */
function restoreAccess(dir: string): void {
  try {
    fs.chmodSync(dir, 0o700);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) restoreAccess(path.join(dir, e.name));
  } catch {
    // Gone or not ours: rmSync says what is left.
  }
}

export function removeTempDirs(): void {
  home = null;
  for (const dir of made.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      restoreAccess(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
