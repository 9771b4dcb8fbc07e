/**
 * The environment an answer may depend on beyond the files it read: where the stores and the
 * tool's own dirs are, the zone. Part of a kept answer's name (answer-memo.ts) and of the question
 * a Tab asks (tab-proof.ts), which each shell's completion function spells from these two lists
 * (commands/completion.ts).
 */

/** These names, and each name that goes on past one of these prefixes. */
export const ANSWER_ENV_NAMES = ["HOME", "LOCALAPPDATA", "TZ", "USERPROFILE"];
export const ANSWER_ENV_PREFIXES = ["CLAWDBOT_", "OPENCLAW_", "XDG_"];
const ENV_NAMES = new RegExp(`^(${[...ANSWER_ENV_NAMES, ...ANSWER_ENV_PREFIXES.map((p) => `${p}\\w+`)].join("|")})$`);

/** Those variables of `env`, as [name, value], in name order. */
export function answerEnv(env: NodeJS.ProcessEnv): Array<[string, string | undefined]> {
  return Object.keys(env)
    .filter((k) => ENV_NAMES.test(k))
    .sort()
    .map((k) => [k, env[k]]);
}
