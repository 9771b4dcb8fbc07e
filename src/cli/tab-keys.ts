/**
 * What the bin runs for `__complete keys` before it loads any bundle of the CLI: the keys the last
 * Tab left, while their proof holds (store/cache/tab-proof.ts), as the tool prints them (those that
 * begin with the prefix, in its order); null for anything else, and the bin runs the CLI as ever.
 * Its own small bundle (dist/tab.js, scripts/build.mjs): a shell whose function cannot check the
 * proof itself (no GNU stat, an old bash, a question with other than ASCII for fish) loads none of
 * the CLI while nothing changed.
 */
import { keptTabKeys, tabQuestion } from "../store/cache/tab-proof.js";
// The bundle's other answer: `ls --json`'s kept listing.
export { keptLs } from "./kept-ls.js";
import { parseCompleteArgs, questionArgs } from "./complete-items.js";

/** `argv`: the arguments after `__complete`. */
export function tabKeys(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | null {
  const parsed = parseCompleteArgs(argv);
  if (parsed?.what !== "keys" || argv[0] !== "keys" || parsed.opts.index === false) return null;
  const args = questionArgs(argv.slice(1));
  const question = args === null ? null : tabQuestion(args, env, cwd);
  const keys = question === null ? null : keptTabKeys(env, question);
  if (keys === null) return null;
  const prefix = parsed.opts.prefix ?? "";
  return keys
    .filter((k) => k.startsWith(prefix))
    .sort()
    .map((k) => `${k}\n`)
    .join("");
}
