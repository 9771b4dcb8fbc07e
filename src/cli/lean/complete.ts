/** The command list of a Tab's `__complete` bundle (scripts/build.mjs): none, program.ts wires `__complete` itself. */
import type { RegisterCommand } from "../define-command.js";

export const COMMANDS: Record<string, RegisterCommand> = {};
