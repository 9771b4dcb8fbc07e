/**
 * Environment failures of a write (full disk, read-only or unwritable store, cross-device move)
 * as named environment errors (exit 3) instead of "internal error, report it". Era-neutral.
 */
import { environmentError, ToolError } from "../core/errors.js";

const NAMED: Record<string, { code: string; what: string; hint: string }> = {
  ENOSPC: { code: "DISK_FULL", what: "the disk is full", hint: "free some space on that filesystem, then run the same command again" },
  EDQUOT: {
    code: "DISK_FULL",
    what: "the disk quota is exhausted",
    hint: "free some space or raise the quota, then run the same command again",
  },
  EROFS: {
    code: "READ_ONLY_FILESYSTEM",
    what: "the filesystem is mounted read-only",
    hint: "remount it read-write (or copy the store to a writable place), then run the same command again",
  },
  EACCES: {
    code: "PERMISSION_DENIED",
    what: "permission denied",
    hint: "run as the user that owns the OpenClaw state dir, or fix the permissions of the dir named",
  },
  EPERM: {
    code: "PERMISSION_DENIED",
    what: "operation not permitted",
    hint: "run as the user that owns the OpenClaw state dir; check for immutable files (lsattr)",
  },
  EXDEV: {
    code: "CROSS_DEVICE",
    what: "the files are on different filesystems",
    hint: "keep the store on one filesystem (a mount point inside the sessions dir is not supported)",
  },
};

/** The errno code of a Node fs error, if it is one. */
export function errnoOf(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : null;
}

/** The named environment error for an fs failure, or null when it is not one of those. */
export function environmentFailure(err: unknown, doing: string): ToolError | null {
  if (err instanceof ToolError) return null;
  const errno = errnoOf(err);
  const named = errno ? NAMED[errno] : undefined;
  if (!named) return null;
  const target = (err as NodeJS.ErrnoException).path;
  return environmentError(named.code, `${doing} failed: ${named.what}${target ? ` (${target})` : ""} [${errno}]`, named.hint, {
    errno,
    ...(target ? { path: target } : {}),
  });
}

/** Rethrows an fs failure as its named environment error; anything else unchanged. */
export function rethrowEnvironment(err: unknown, doing: string): never {
  throw environmentFailure(err, doing) ?? err;
}
