/**
 * The one error boundary: typed errors become their exit code and a message (plus a JSON error
 * document on stdout in --json mode), and so do the environment's (an fs errno, a damaged SQLite
 * database: exit 3); anything else is an internal error (exit 1) with a pointer to --debug. Every
 * message is one line (a native loader's multi-line dump included).
 */
import { ToolError, ExitCode, environmentError, type ExitCodeValue } from "../core/errors.js";
import type { IO } from "./output.js";
import { safeLine } from "../core/safe-text.js";
import { environmentErrorOf } from "../store/env-errors.js";

export const ERROR_SCHEMA_VERSION = 1;

const CAPABILITY_CODES = new Set([
  "ERR_UNKNOWN_BUILTIN_MODULE",
  "ERR_DLOPEN_FAILED",
  "ERR_MODULE_NOT_FOUND",
  "MODULE_NOT_FOUND",
  "ERR_REQUIRE_ESM",
]);

function firstLine(s: string): string {
  return (
    s
      .split(/\r?\n/)
      .find((l) => l.trim() !== "")
      ?.trim() ?? s
  );
}

/** A runtime that lacks something the tool needs (a built-in module, a native binding): one line, exit 3. */
function capabilityError(err: unknown): ToolError | null {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e !== "object" || typeof e.message !== "string") return null;
  const native = /bindings file|was compiled against a different Node\.js version|NODE_MODULE_VERSION|invalid ELF header/.test(e.message);
  if (!native && !(e.code && CAPABILITY_CODES.has(e.code))) return null;
  return environmentError(
    "RUNTIME_CAPABILITY_MISSING",
    `this Node.js runtime (${process.version}) lacks what the command needs (use Node.js ≥ 22.22): ${firstLine(e.message)}`,
  );
}

/**
 * The one way a message line reaches stderr: `openclaw-sessions: <text>` and an optional
 * `  hint:` line, each made safe (messages name keys and paths from the store).
 */
export function writeMessage(io: Pick<IO, "stderr">, text: string, hint?: string | null): void {
  io.stderr.write(`openclaw-sessions: ${safeLine(text)}\n${hint ? `  hint: ${safeLine(hint)}\n` : ""}`);
}

/**
 * What an error is to the user: the tool's typed error, else a runtime that lacks something, else
 * what the environment did (a file the OS will not give, a full disk, a damaged database: exit 3,
 * src/store/env-errors.ts); null when it is the tool's own bug.
 */
function knownError(err: unknown): ToolError | null {
  return err instanceof ToolError ? err : (capabilityError(err) ?? environmentErrorOf(err));
}

/** The files an error's message already names (the boundary names each unreadable file once). */
export function pathsNamedBy(err: unknown): string[] {
  const details = knownError(err)?.details ?? {};
  return [details.path, details.storePath].filter((p): p is string => typeof p === "string");
}

export function reportError(err: unknown, io: IO, opts: { json?: boolean; debug?: boolean }): ExitCodeValue {
  const known = knownError(err);
  const code = known ? known.code : "INTERNAL_ERROR";
  const kind = known ? known.kind : "internal";
  const message = known ? known.message : `unexpected error: ${firstLine((err as Error)?.message ?? String(err))}`;
  const hint = known ? known.hint : "rerun with --debug for the stack, and report it with the command you ran";
  if (opts.json) {
    const doc = {
      schemaVersion: ERROR_SCHEMA_VERSION,
      ok: false,
      error: { code, kind, message, hint: hint ?? null, ...(known?.details ?? {}) },
    };
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
  writeMessage(io, message, hint);
  if (opts.debug && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
  return known ? known.exitCode : ExitCode.problems;
}
