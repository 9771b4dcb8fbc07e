/** Options shared by every command that reads a store, and the one coercion of option values. */
import { type Command, Option } from "commander";
import { usageError } from "../core/errors.js";
import { docsPath } from "./package-info.js";

// Kept without commander (a Tab's `__complete` reads them without loading it): src/cli/selection.ts.
export { selectionOf, type CommonOptions } from "./selection.js";

export function addStoreOptions(cmd: Command): Command {
  return cmd
    .option("--state-dir <dir>", "OpenClaw state dir (default: $OPENCLAW_STATE_DIR, ~/.openclaw, legacy ~/.clawdbot)")
    .option("--profile <name>", "OpenClaw profile: ~/.openclaw-<name>")
    .option("--agent <id>", "agent id (default: the agent a key names, else main)", undefined)
    .option("--all-agents", "every agent of the state dir")
    .option("--sessions-dir <dir>", "a bare sessions directory")
    .option("--store <file>", "an explicit sessions.json")
    .option("--no-index", "read every transcript itself: no index read or written (also OPENCLAW_SESSIONS_INDEX=off)");
}

/** `--vault [dir]` of a read command: `what` says what the vault adds to it. */
export function addVaultOption(cmd: Command, what: string): Command {
  return cmd.option("--vault [dir]", `${what} (the default vault without dir; \`snapshot\` fills it)`);
}

export function addOutputOptions(cmd: Command, json = true): Command {
  if (json) cmd.option("--json", `machine-readable JSON on stdout (stable schema: ${docsPath("json.md")})`);
  // timeline declares its own --tz (it also sets the daily-reset boundaries).
  if (!cmd.options.some((o) => o.long === "--tz"))
    cmd.option("--tz <zone>", "IANA time zone for the times shown (default: $TZ or this machine's)");
  return cmd
    .addOption(new Option("--color", "force colour"))
    .addOption(new Option("--no-color", "no colour"))
    .option("-q, --quiet", "data only: no context lines (store, file read, counts) on stderr; errors still shown")
    .option("--debug", "show stacks of unexpected errors");
}

/**
 * The one coercion of numeric option values: a whole number written in decimal digits, at least
 * `min`. Anything else ("abc", "1.5", "-3", "1e3", "") is a usage error (exit 2, one line).
 */
export function integerOption(flag: string, opts: { min?: number } = {}) {
  const min = opts.min ?? 0;
  return (v: string): number => {
    const n = /^\+?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      throw usageError("BAD_OPTION_VALUE", `${flag} takes a whole number ≥ ${min}, got ${JSON.stringify(v)}`, undefined, {
        option: flag,
        value: v,
      });
    }
    return n;
  };
}

/** Other names a `--format` value may be given by: `markdown` is `md`. */
const FORMAT_ALIASES: Readonly<Record<string, string>> = { markdown: "md" };

/**
 * `--format <format>`, the one parsing of format names: one of `formats` or an alias of one of
 * them (`markdown` for `md`); anything else is a usage error (exit 2, one line).
 */
export function formatOption(description: string, formats: readonly string[]): Option {
  return new Option("--format <format>", description).choices([...formats]).argParser((v: string) => {
    const format = FORMAT_ALIASES[v] ?? v;
    if (formats.includes(format)) return format;
    throw usageError("BAD_OPTION_VALUE", `--format ${JSON.stringify(v)} is not a format: use ${formats.join(", ")}`, undefined, {
      option: "--format",
      value: v,
    });
  });
}

/** The roles a transcript message can have, as the tool names them (`system`: summaries). */
export const ROLES = ["user", "assistant", "toolResult", "system"] as const;

/** `--role`: repeatable and comma-separated; an unknown role is a usage error. */
export function roleList(flag = "--role") {
  return (v: string, prev: string[] = []): string[] => {
    const roles = v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (roles.length === 0)
      throw usageError("BAD_OPTION_VALUE", `${flag} needs one of ${ROLES.join(", ")}, got ${JSON.stringify(v)}`, undefined, {
        option: flag,
        value: v,
      });
    const known = roles.map((r) => ROLES.find((k) => k.toLowerCase() === r.toLowerCase()));
    const bad = roles.find((_, i) => known[i] === undefined);
    if (bad !== undefined) {
      throw usageError("BAD_OPTION_VALUE", `${flag} ${JSON.stringify(bad)} is not a role: use ${ROLES.join(", ")}`, undefined, {
        option: flag,
        value: v,
      });
    }
    return [...prev, ...(known as string[])];
  };
}
