/**
 * The one error boundary: typed errors become their exit code and a message (plus a JSON error
 * document on stdout in --json mode); anything unexpected is an internal error (exit 1) with a
 * pointer to --debug.
 */
import { ToolError, ExitCode, type ExitCodeValue } from "../core/errors.js";
import type { IO } from "./output.js";

export const ERROR_SCHEMA_VERSION = 1;

export function reportError(err: unknown, io: IO, opts: { json?: boolean; debug?: boolean }): ExitCodeValue {
  const known = err instanceof ToolError ? err : null;
  const code = known ? known.code : "INTERNAL_ERROR";
  const kind = known ? known.kind : "internal";
  const message = known ? known.message : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
  const hint = known ? known.hint : "rerun with --debug for the stack, and report it with the command you ran";
  if (opts.json) {
    const doc = { schemaVersion: ERROR_SCHEMA_VERSION, ok: false, error: { code, kind, message, hint: hint ?? null, ...(known?.details ?? {}) } };
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
  io.stderr.write(`openclaw-sessions: ${message}\n`);
  if (hint) io.stderr.write(`  hint: ${hint}\n`);
  if (opts.debug && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
  return known ? known.exitCode : ExitCode.problems;
}
