/**
 * Permission tests when the suite runs as root: root reads and writes whatever a mode says, so the
 * CLI under test runs as a separate process of an unprivileged user (`nobody`, uid/gid 65534, no
 * supplementary groups) instead, with the paths it needs opened to it. As any other user, the CLI
 * runs as that user: the modes already bite.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN } from "./built-cli.js";
import { ROOT } from "./corpus.js";
import type { CliResult } from "./cli.js";

export const IS_ROOT = process.getuid?.() === 0;
/** Who a permission test's CLI runs as when the suite is root (spawn's uid/gid: supplementary groups dropped). */
export const NOBODY = { uid: 65534, gid: 65534 };

/** Search permission for others on `dir` and every dir above it (root only; the modes are otherwise kept). */
export function reachable(dir: string): void {
  if (!IS_ROOT) return;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const mode = fs.statSync(d).mode & 0o7777;
    if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
    if (d === path.dirname(d)) break;
  }
}

/** A dir the CLI process may write (its HOME, TMPDIR, manifest dir): made, writable by it, reachable. */
export function writableDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  if (IS_ROOT) fs.chmodSync(dir, 0o777);
  reachable(dir);
  return dir;
}

const running = new Set<ChildProcess>();

/** Kills the CLI processes a test left running (a hang the runner gave up on): call it in afterEach. */
export function killLeftRunning(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

/**
 * The built CLI as a user without privileges (see the header): NO_COLOR, the given environment,
 * nothing on stdin. `home` must be a `writableDir`; it is also the CLI's TMPDIR.
 */
export function cliUnprivileged(argv: string[], opts: { home: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: "1", HOME: opts.home, TMPDIR: opts.home, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(IS_ROOT ? NOBODY : {}),
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      running.delete(child);
      resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) });
    });
  });
}
