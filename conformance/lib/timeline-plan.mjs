/**
 * `timeline <key>` on a random store (`lib/store-plan.mjs`) beside what OpenClaw answered while it
 * wrote it (`log`: each step with OpenClaw's result). Since the key was last deleted:
 * - the sessions OpenClaw gave the key (each turn's, each `/new` or `/reset`'s, each gateway
 *   reset's), those with a transcript (`hasTranscript(id)`), are segments in that order. Two kinds
 *   of session leave nothing on disk that links what came before them to the key, so the sessions
 *   before them may be missing (`ls` lists their files as belonging to no key, as `history-random`
 *   checks): one with no transcript at all (a bare `/new` replaced before its first message), and
 *   one a bare `/new` or `/reset` began whose transcript was first written later, at its first
 *   message (the reset-successor rule links a header written within 2 s of the archive only);
 * - each compaction OpenClaw ran is a compaction event in its session's segments;
 * - each boundary between two sessions (7.1's resets: 9.6 keeps the sessionId across its own)
 *   ends the earlier one for a reason that fits what happened: a rollover on a message to a stale
 *   session is `daily` or `idle`, a gateway reset `manual`, a `/new` or `/reset` (bare or worded)
 *   `manual`, or `daily`/`idle` when the session had gone stale before it (7.1 writes the command to
 *   neither transcript, and the stale session would have rolled over on any message);
 * - the current segment, if any, is the entry's sessionId, and `compactionCountCheck` counts the
 *   compaction entries in it (none when the current session has no transcript yet).
 * `run(args)` runs this tool on the store and gives its JSON; `hasTranscript` is `transcriptTest`'s;
 * `where(what)` words a failure. Returns how many sessions, reset reasons and compactions it checked.
 */
import fs from "node:fs";

export async function timelineFollowsPlan(run, log, key, hasTranscript, where) {
  const steps = log.filter((s) => s.key === key);
  const life = steps.slice(steps.map((s) => s.op).lastIndexOf("delete") + 1);
  const ids = [];
  const ran = new Map();
  const bare = new Set(life.filter((s) => s.op === "command").map((s) => s.result?.sessionId));
  // "from>to" → the kinds of end reason that fit what moved the key from one session to the other.
  const fits = new Map();
  for (const s of life) {
    const from = s.result?.previousSessionId ?? ids.at(-1);
    for (const id of [s.result?.previousSessionId, s.result?.sessionId]) if (id && ids.at(-1) !== id) ids.push(id);
    const sid = s.result?.sessionId;
    if (s.op === "compaction" && sid) ran.set(sid, (ran.get(sid) ?? 0) + 1);
    if (!from || !sid || from === sid) continue;
    if (s.op === "reset") fits.set(`${from}>${sid}`, ["manual"]);
    else if (s.op === "command" || (s.op === "turn" && /^\/(new|reset)\s/.test(s.text ?? "")))
      fits.set(`${from}>${sid}`, ["manual", "daily", "idle"]);
    else if (s.op === "turn" && s.result.isNewSession) fits.set(`${from}>${sid}`, ["daily", "idle"]);
  }
  const t = await run(["timeline", key, "--json"]);
  const shown = [];
  for (const s of t.segments) if (shown.at(-1) !== s.sessionId) shown.push(s.sessionId);
  const inOrder = (list) => {
    let i = 0;
    for (const id of shown) if (id === list[i]) i++;
    return i === list.length;
  };
  // Every session after the last that breaks the chain must be there, in order (one a bare command began, itself too).
  let from = 0;
  ids.forEach((id, i) => {
    if (!hasTranscript(id)) from = i + 1;
    else if (bare.has(id)) from = i;
  });
  const must = ids.slice(from);
  if (!inOrder(must))
    throw new Error(
      where(`timeline ${key} shows sessions ${JSON.stringify(shown)}; OpenClaw gave it ${JSON.stringify(ids)} in that order`),
    );
  let reasons = 0;
  for (let i = 0; i + 1 < t.segments.length; i++) {
    const [a, b] = [t.segments[i], t.segments[i + 1]];
    const fit = fits.get(`${a.sessionId}>${b.sessionId}`);
    if (!fit) continue;
    reasons += 1;
    if (!fit.includes(a.endReason?.kind))
      throw new Error(
        where(`timeline ${key} ends ${a.sessionId} for ${JSON.stringify(a.endReason)}; what OpenClaw did fits ${fit.join(" or ")}`),
      );
  }
  const compactions = t.events.filter((e) => e.type === "compaction");
  for (const [sid, n] of ran) {
    if (!shown.includes(sid)) continue;
    const got = compactions.filter((e) => e.sessionId === sid).length;
    if (got < n) throw new Error(where(`timeline ${key} shows ${got} compaction(s) of ${sid}; OpenClaw ran ${n}`));
  }
  const current = t.segments.findIndex((s) => s.current);
  if (current >= 0 && t.segments[current].sessionId !== t.sessionId)
    throw new Error(
      where(`timeline ${key}: the current segment is ${t.segments[current].sessionId}, the entry's sessionId ${t.sessionId}`),
    );
  const inCurrent = current < 0 ? 0 : compactions.filter((e) => e.segment === current).length;
  if (t.compactionCountCheck.inCurrentSegment !== inCurrent)
    throw new Error(
      where(
        `timeline ${key}: compactionCountCheck counts ${t.compactionCountCheck.inCurrentSegment} in the current segment, which holds ${inCurrent}`,
      ),
    );
  return { sessions: must.length, reasons, compactions: [...ran.values()].reduce((a, b) => a + b, 0) };
}

/**
 * Which of the sessions in `log` have a transcript: in a 7.1 store (`era` "files"), a file of the
 * sessions dir named by the id; in a 9.6 store, a session OpenClaw wrote a message to or compacted.
 */
export function transcriptTest(era, log, sessionsDir) {
  if (era === "files") {
    const names = fs.readdirSync(sessionsDir);
    return (id) => names.some((n) => n.startsWith(`${id}.jsonl`) || n.startsWith(`${id}-topic-`));
  }
  const written = new Set(
    log.filter((s) => (s.op === "turn" || s.op === "compaction") && s.result?.sessionId).map((s) => s.result.sessionId),
  );
  return (id) => written.has(id);
}
