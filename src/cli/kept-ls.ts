/**
 * `ls --json` answered by the bin before it loads any of the CLI: the listing an earlier run wrote,
 * while its proof holds (store/cache/tab-proof.ts: every file and dir the listing was derived from
 * as it was, the same question). Only for the plain invocation scripts make, `ls --json` and store
 * options, whose output is that listing alone: no key, filter or other option, nothing on stderr.
 */
import { keptLsListing, tabQuestion } from "../store/cache/tab-proof.js";
import { COMPLETE_STORE_OPTIONS } from "./complete-items.js";

/**
 * The question of `argv` (the arguments after the program's name) as its proof spells it, when
 * they are `ls`, `--json` once and store options (`--opt value` or `--opt=value`), but
 * `--no-index`, with which nothing is kept; null for anything else.
 */
export function keptLsQuestion(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  if (argv[0] !== "ls") return null;
  let json = 0;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--json") {
      json += 1;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const option = name === "--no-index" || !Object.hasOwn(COMPLETE_STORE_OPTIONS, name) ? null : COMPLETE_STORE_OPTIONS[name]!;
    if (option === null || (eq >= 0 && !option.takesValue)) return null;
    if (option.takesValue && eq < 0 && ++i >= argv.length) return null;
  }
  return json === 1 ? tabQuestion(argv, env, cwd) : null;
}

/** The listing to print for `argv`, while its proof holds; null for anything else (the CLI answers). */
export function keptLs(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Buffer | null {
  const question = keptLsQuestion(argv, env, cwd);
  return question === null ? null : keptLsListing(env, question);
}
