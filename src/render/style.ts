/**
 * The colours a text reporter writes with: one chalk instance at the level the CLI chose at
 * start-up. Chalk is loaded only for a run that writes colour (`loadColours`, by the CLI's error
 * boundary): loading it (and node:tty, which it probes) was a measurable part of every start, and
 * most runs (a pipe, --json, NO_COLOR, completion) write none.
 */
import type { ChalkInstance } from "chalk";

export type ColorLevel = 0 | 1 | 2 | 3;

export interface Style {
  level: ColorLevel;
  c: ChalkInstance;
}

let chalk: typeof import("chalk") | null = null;

/** Loads chalk for makeStyle at a level above 0; once per process. */
export async function loadColours(): Promise<void> {
  chalk ??= await import("chalk");
}

/**
 * Chalk at level 0 without chalk: every style, and every chain of them (`c.bold.red`), gives its
 * text back as chalk's level 0 does (one argument as a string, several joined by a space).
 */
const plain = (...parts: unknown[]): string => (parts.length === 1 ? `${parts[0]}` : parts.join(" "));
const PLAIN: ChalkInstance = new Proxy(plain, {
  get(target, name) {
    // Not a style: symbols (toPrimitive…) and `then` (never a thenable) are the function's own.
    if (typeof name === "symbol" || name === "then") return Reflect.get(target, name);
    return name === "level" ? 0 : name === "visible" ? () => "" : PLAIN;
  },
}) as unknown as ChalkInstance;

export function makeStyle(level: ColorLevel): Style {
  if (level === 0) return { level, c: PLAIN };
  if (!chalk) throw new Error("internal: a coloured style made before loadColours()");
  return { level, c: new chalk.Chalk({ level }) };
}
