/**
 * The environment an answer may depend on beyond the files it read: where the stores and the
 * tool's own dirs are, the zone. Part of a kept answer's name (answer-memo.ts) and of the question
 * bash's Tab asks (tab-proof.ts).
 */
const ENV_NAMES = /^(HOME|USERPROFILE|LOCALAPPDATA|TZ|XDG_\w+|OPENCLAW_\w+|CLAWDBOT_\w+)$/;

/** Those variables of `env`, as [name, value], in name order. */
export function answerEnv(env: NodeJS.ProcessEnv): Array<[string, string | undefined]> {
  return Object.keys(env)
    .filter((k) => ENV_NAMES.test(k))
    .sort()
    .map((k) => [k, env[k]]);
}
