/**
 * How the SQLite-era restore checks judge a restored key with OpenClaw 2026.9.6's own code:
 * `openclaw sessions --json` lists it with the restored sessionId, `openclaw doctor --session-sqlite
 * inspect --json` reports integrity ok and no issue, the plugin SDK's model context holds exactly
 * the messages `history` listed, and a later append lands on the restored window after its last event.
 */
import { openclaw96 as openclaw } from "./openclaw96.mjs";
import { jsonChild } from "./json-child.mjs";

export function sdk(ctx, stateDir, req) {
  return jsonChild(ctx, "sdk96-reader.mjs", ctx.openclaw96Dir, stateDir, { agentId: "main", ...req }, "SDK reader");
}

/** The user/assistant/toolResult texts `history` shows, in order. */
export function historyTexts(stdout) {
  return JSON.parse(stdout)
    .messages.filter((m) => ["user", "assistant", "toolResult"].includes(m.role))
    .map((m) => `${m.role}:${m.text}`);
}

export function judge96(ctx, stateDir, key, sessionId, expected, label) {
  const list = openclaw(ctx, stateDir, ["sessions", "--json", "--agent", "main"]);
  if (list.code !== 0)
    throw new Error(`${label}: openclaw sessions exited ${list.code}: ${list.out.trim().split("\n").slice(-2).join(" | ")}`);
  const row = list.json?.sessions?.find((s) => s.key === key);
  if (row?.sessionId !== sessionId)
    throw new Error(`${label}: openclaw sessions lists ${key} with ${row ? row.sessionId : "nothing"}, expected ${sessionId}`);
  const inspect = openclaw(ctx, stateDir, ["doctor", "--session-sqlite", "inspect", "--json"]);
  const t = inspect.json?.targets?.[0];
  if (inspect.code !== 0 || t?.dbStats?.integrityCheck !== "ok" || inspect.json?.totals?.issues !== 0)
    throw new Error(
      `${label}: doctor inspect exit ${inspect.code}, integrity ${t?.dbStats?.integrityCheck}, ${inspect.json?.totals?.issues} issue(s)`,
    );
  const seen = sdk(ctx, stateDir, { sessionKey: key });
  if (seen.entry?.sessionId !== sessionId)
    throw new Error(`${label}: getSessionEntry gives ${seen.entry?.sessionId}, expected ${sessionId}`);
  const context = seen.context.map((m) => `${m.role}:${m.text}`);
  if (JSON.stringify(context) !== JSON.stringify(expected))
    throw new Error(`${label}: the model context is ${JSON.stringify(context)}, history showed ${JSON.stringify(expected)}`);
  const after = sdk(ctx, stateDir, { sessionKey: key, append: "a later question" });
  const last = after.events.at(-1);
  const prev = after.events.at(-2);
  if (after.entry.sessionId !== sessionId || last?.id !== after.appended || last?.parentId !== prev?.id)
    throw new Error(`${label}: the append did not land on the restored window after its last event`);
  const ctxAfter = after.context.map((m) => `${m.role}:${m.text}`);
  if (ctxAfter.at(-1) !== "user:a later question" || ctxAfter.length !== expected.length + 1)
    throw new Error(`${label}: after the append the context is ${JSON.stringify(ctxAfter)}`);
  return { events: seen.events.length, context: context.length };
}
