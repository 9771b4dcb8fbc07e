/**
 * Every command's wiring, by name. The bundles of single commands (scripts/build.mjs) take one of
 * src/cli/lean/ in its place: a run of `ls` then loads and compiles only what ls can run.
 */
import { registerLs } from "./commands/ls.js";
import { registerTimeline } from "./commands/timeline.js";
import { registerCheck } from "./commands/check.js";
import { registerRestore } from "./commands/restore.js";
import { registerHistory } from "./commands/history.js";
import { registerGrep } from "./commands/grep.js";
import { registerExport } from "./commands/export.js";
import { registerContextPack } from "./commands/context-pack.js";
import { registerCompactions } from "./commands/compactions.js";
import { registerUsage } from "./commands/usage.js";
import { registerSkill } from "./commands/skill.js";
import { registerVerifyImport } from "./commands/verify-import.js";
import { registerIndex } from "./commands/index-cache.js";
import { registerSnapshot } from "./commands/snapshot.js";
import { registerOpen, registerServe } from "./commands/serve.js";
import { registerCompletion } from "./commands/completion.js";
import type { RegisterCommand } from "./define-command.js";

/** Every command, in help order. */
export const COMMANDS: Record<string, RegisterCommand> = {
  ls: registerLs,
  history: registerHistory,
  timeline: registerTimeline,
  compactions: registerCompactions,
  usage: registerUsage,
  check: registerCheck,
  grep: registerGrep,
  export: registerExport,
  "context-pack": registerContextPack,
  skill: registerSkill,
  restore: registerRestore,
  "verify-import": registerVerifyImport,
  serve: registerServe,
  open: registerOpen,
  index: registerIndex,
  snapshot: registerSnapshot,
  completion: registerCompletion,
};
