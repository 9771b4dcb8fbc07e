/**
 * Typed errors. Commands throw these; the single boundary in src/cli/boundary.ts maps them to
 * exit codes. Nothing below src/cli ever calls process.exit.
 */

/** The documented exit codes (README, docs/exit-codes.md). */
export const ExitCode = {
  ok: 0,
  problems: 1,
  usage: 2,
  environment: 3,
  unsupported: 4,
  refused: 5,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorKind = "usage" | "environment" | "unsupported" | "refused" | "internal";

const exitForKind: Record<ErrorKind, ExitCodeValue> = {
  usage: ExitCode.usage,
  environment: ExitCode.environment,
  unsupported: ExitCode.unsupported,
  refused: ExitCode.refused,
  internal: ExitCode.problems,
};

/** An error the user can act on: a stable `code` for scripts, a message and a hint for people. */
export class ToolError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly hint: string | undefined;
  /** Structured facts for the JSON error document (paths, candidates…). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    kind: ErrorKind,
    code: string,
    message: string,
    opts: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ToolError";
    this.kind = kind;
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details;
  }

  get exitCode(): ExitCodeValue {
    return exitForKind[this.kind];
  }
}

export const usageError = (code: string, message: string, hint?: string, details?: Record<string, unknown>) =>
  new ToolError("usage", code, message, { hint, details });
export const environmentError = (code: string, message: string, hint?: string, details?: Record<string, unknown>) =>
  new ToolError("environment", code, message, { hint, details });
export const unsupportedError = (code: string, message: string, hint?: string, details?: Record<string, unknown>) =>
  new ToolError("unsupported", code, message, { hint, details });
export const refusedError = (code: string, message: string, hint?: string, details?: Record<string, unknown>) =>
  new ToolError("refused", code, message, { hint, details });
