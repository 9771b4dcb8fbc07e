/** The step number a random plan's message ends with, as `(n)`: what names the message. */
export const markerOf = (text) => /\((\d+)\)$/.exec(text ?? "")?.[0];

/**
 * One `grep` over a random store (`lib/store-plan.mjs`: every message it sends ends with its step
 * number) finds every message the plan sent, to live keys or deleted ones, and names the key it
 * was sent to wherever it names one. `run(args)` runs this tool on the store and gives its JSON;
 * `log` is what the writer returned; `where(what)` words a failure. Returns how many it found.
 */
export async function grepFindsEveryTurn(run, log, where) {
  const found = await run(["grep", "\\(\\d+\\)$", "--role", "user", "--json"]);
  const keyOf = new Map(log.filter((s) => s.op === "turn" && s.result?.sessionId).map((s) => [markerOf(s.text), s.key]));
  const seen = new Set();
  for (const m of found.matches) {
    const mk = markerOf(m.snippet.trim());
    seen.add(mk);
    if (m.sessionKey && keyOf.has(mk) && m.sessionKey !== keyOf.get(mk))
      throw new Error(where(`grep names ${m.sessionKey} for ${mk} in ${m.path}, which was sent to ${keyOf.get(mk)}`));
  }
  for (const [mk, key] of keyOf) if (!seen.has(mk)) throw new Error(where(`grep does not find ${mk}, sent to ${key}`));
  return keyOf.size;
}
