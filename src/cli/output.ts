/**
 * Output decisions made once at start-up and passed down: colour level per stream (NO_COLOR,
 * FORCE_COLOR, TERM=dumb, TTY), and whether a spinner may run. No global chalk instance.
 */
import type { ColorLevel } from "../render/style.js";

export interface IO {
  stdout: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stderr: NodeJS.WriteStream | { write(s: string): boolean; isTTY?: boolean };
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Reads one answer from the terminal (prompt on stderr); absent when no terminal can answer. */
  ask?: (question: string) => Promise<string>;
}

/** Precedence: --no-color/--color, NO_COLOR, FORCE_COLOR, TERM=dumb, then the stream being a TTY. */
export function colorLevel(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): ColorLevel {
  if (flag === false) return 0;
  if (flag === true) return 1;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === "0" || force === "false") return 0;
    const n = Number(force);
    return n >= 1 && n <= 3 ? (n as ColorLevel) : 1;
  }
  if (env.TERM === "dumb") return 0;
  return isTTY ? 1 : 0;
}

/** Spinners: only on a TTY stderr, never for machine output, quiet runs or CI. */
export function spinnerAllowed(io: IO, opts: { json?: boolean; quiet?: boolean }): boolean {
  return Boolean(io.stderr.isTTY) && !opts.json && !opts.quiet && !io.env.CI;
}
