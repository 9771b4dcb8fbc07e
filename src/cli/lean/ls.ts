/** The command list of `ls`'s own bundle (scripts/build.mjs): its wiring alone. */
import { registerLs } from "../commands/ls.js";
import type { RegisterCommand } from "../define-command.js";

export const COMMANDS: Record<string, RegisterCommand> = { ls: registerLs };
