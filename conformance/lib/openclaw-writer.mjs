/**
 * Child process: writes a session store with OpenClaw's own code (2026.7.1: sessions.json and
 * JSONL files; 2026.9.6: the SQLite agent database), one step of a plan at a time, on a fixed
 * clock (each step's `at`). Used by `conformance/checks/check-clean.mjs` and
 * `scripts/make-check-fixtures.mjs`. Steps (`conformance/lib/store-plan.mjs` makes them):
 *
 *   turn       an inbound message: initSessionState (src/auto-reply/reply/session.ts; a daily or
 *              idle expiry rolls the session over here, as in OpenClaw), the user message through
 *              persistSessionTranscriptTurn, the scripted assistant reply through SessionManager,
 *              the store through updateSessionStoreAfterAgentRun — what the embedded runner does
 *              after a model call (no model runs)
 *   command    a bare `/new` or `/reset`: initSessionState only. OpenClaw's reset command then
 *              replies "✅ New session started." without a run, so the new session has no file
 *   reset      gateway `sessions.reset` → performGatewaySessionReset
 *   delete     gateway `sessions.delete` (deleteTranscript as given)
 *   trim       gateway `sessions.compact {maxLines}` (7.1: the `.bak` of the trimmed transcript)
 *   compaction a compaction entry through SessionManager.appendCompaction and the run's store update
 *              (optional `summary`, `keep`: the message kept from, counted from the branch's end, 0 none)
 *   resetBoundary  9.6: a reset row keeping the last `keep` messages (SessionManager.appendResetBoundary)
 *
 * argv: <openclaw package dir> <state dir> <json {steps, config}>. Prints one JSON line:
 * {steps: [{...step, result}]}. Keep the network off (`unshare -n`): nothing here needs it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { distFunctions } from "./dist-functions.mjs";
import { fixClock } from "./fixed-clock.mjs";

const [oc, stateDir, json] = process.argv.slice(2);
const plan = JSON.parse(json);

const version = JSON.parse(fs.readFileSync(path.join(oc, "package.json"), "utf8")).version;
const FILES = version === "2026.7.1";

// 7.1: the clock every OpenClaw function reads, set before a step runs and still inside it. 9.6
// runs its SQLite maintenance in worker threads, which a patched Date does not reach (leases
// taken on two clocks collide), so 9.6 runs on the real clock, its steps one after the other.
const clock = FILES ? fixClock(plan.steps[0]?.at ?? Date.parse("2026-07-01T09:00:00Z")) : null;

process.env.OPENCLAW_STATE_DIR = stateDir;
fs.mkdirSync(stateDir, { recursive: true });
// Written only when it says something else: a config rewritten at each chunk is a change no user's turn makes (every kept answer read it).
const configFile = path.join(stateDir, "openclaw.json");
const configText = `${JSON.stringify(plan.config, null, 2)}\n`;
if (!fs.existsSync(configFile) || fs.readFileSync(configFile, "utf8") !== configText) fs.writeFileSync(configFile, configText);

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-writer-"));
// 7.1 keeps every sessions.* method in one handler table; 9.6 splits them by method family.
const fns = await distFunctions(oc, {
  exported: [
    "getRuntimeConfig",
    "persistSessionTranscriptTurn",
    "SessionManager",
    "updateSessionStoreAfterAgentRun",
    "performGatewaySessionReset",
    ...(FILES ? ["sessionsHandlers", "loadSessionStore", "resolveSessionStoreEntry"] : ["sessionDeleteHandlers", "getSessionEntry"]),
  ],
  hidden: ["initSessionState"],
  tmpDir,
});
const HANDLERS = FILES ? { ...fns.sessionsHandlers } : { ...fns.sessionDeleteHandlers };

const MODEL = { provider: "anthropic", model: "claude-sonnet-4-5" };
const storePath = (agentId) => path.join(stateDir, "agents", agentId, "sessions", "sessions.json");
const agentOf = (key) => key.split(":")[1] ?? "main";

/** The inbound message context of a key (channel, peer, chat type), as a channel plugin builds it. */
function inbound(key, body) {
  const parts = key.split(":");
  const channel = ["telegram", "discord", "whatsapp", "signal", "slack"].includes(parts[2]) ? parts[2] : "webchat";
  const chatType = channel === "webchat" ? "direct" : parts[3] === "direct" ? "direct" : parts[3] === "group" ? "group" : "channel";
  const peer = channel === "webchat" ? "operator" : parts.slice(4).join(":");
  return {
    // 7.1 reads Body/RawBody/CommandBody; 9.6 agentText/commandText/rawText.
    Body: body,
    RawBody: body,
    CommandBody: body,
    agentText: body,
    commandText: body,
    rawText: body,
    SessionKey: key,
    Provider: channel,
    Surface: channel,
    OriginatingChannel: channel,
    ChatType: chatType,
    From: `${channel}:${peer}`,
    To: channel === "webchat" ? "webchat" : `${channel}:${peer}`,
    SenderId: peer,
    AccountId: "default",
    CommandAuthorized: true,
  };
}

function entryOf(key) {
  const sp = storePath(agentOf(key));
  if (!FILES) return fns.getSessionEntry({ agentId: agentOf(key), sessionKey: key, storePath: sp }) ?? null;
  return fns.resolveSessionStoreEntry({ store: fns.loadSessionStore(sp, { skipCache: true }), sessionKey: key }).existing ?? null;
}

/** What SessionManager.open takes: 7.1 the transcript file, 9.6 the session's SQLite target. */
function transcriptOf(key, sessionId, sessionFile) {
  return FILES ? sessionFile : { agentId: agentOf(key), sessionKey: key, storePath: storePath(agentOf(key)), sessionId };
}

/** The store write the embedded runner makes after a run (model, usage, compactions). */
async function afterRun(key, sessionId, extra = {}) {
  const sp = storePath(agentOf(key));
  await fns.updateSessionStoreAfterAgentRun({
    cfg: fns.getRuntimeConfig(),
    sessionId,
    sessionKey: key,
    storePath: sp,
    sessionStore: FILES ? fns.loadSessionStore(sp, { skipCache: true }) : { [key]: entryOf(key) },
    defaultProvider: MODEL.provider,
    defaultModel: MODEL.model,
    result: {
      meta: {
        durationMs: 1500,
        agentMeta: {
          sessionId,
          ...MODEL,
          usage: { input: 2300, output: 70, cacheRead: 0, cacheWrite: 0, total: 2370 },
          ...extra,
        },
      },
    },
  });
}

function assistant(text) {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    ...MODEL,
    usage: {
      input: 2300,
      output: 70,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2370,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

async function turn(step) {
  const cfg = fns.getRuntimeConfig();
  const init = await fns.initSessionState({ ctx: inbound(step.key, step.text), cfg, commandAuthorized: true });
  const agentId = agentOf(step.key);
  const body = init.bodyStripped ?? step.text;
  const persisted = await fns.persistSessionTranscriptTurn(
    { agentId, sessionKey: init.sessionKey, sessionId: init.sessionId, storePath: init.storePath, sessionEntry: init.sessionEntry },
    { messages: [{ message: { role: "user", content: body, timestamp: Date.now() } }], touchSessionEntry: true },
  );
  if (clock) clock.ms += 2500;
  const sm = fns.SessionManager.open(transcriptOf(step.key, init.sessionId, persisted.sessionFile));
  sm.appendMessage(assistant(`(scripted reply to: ${body.slice(0, 40)})`));
  await afterRun(step.key, init.sessionId);
  return { sessionId: init.sessionId, isNewSession: init.isNewSession };
}

async function command(step) {
  const cfg = fns.getRuntimeConfig();
  const before = entryOf(step.key)?.sessionId ?? null;
  const init = await fns.initSessionState({ ctx: inbound(step.key, step.text), cfg, commandAuthorized: true });
  if (!init.resetTriggered) throw new Error(`${step.text} on ${step.key} did not trigger a reset`);
  return { previousSessionId: before, sessionId: init.sessionId };
}

async function gatewayReset(step) {
  const r = await fns.performGatewaySessionReset({ key: step.key, reason: step.reason, commandSource: "gateway:sessions.reset" });
  if (!r.ok) throw new Error(`sessions.reset ${step.key}: ${JSON.stringify(r.error)}`);
  return { sessionId: r.entry.sessionId };
}

/** A gateway method called in-process, as the Gateway's request router would (no transport). */
async function gateway(method, params) {
  const cfg = fns.getRuntimeConfig();
  // No client is connected and no run is active: empty subscriber sets and run maps, no-op broadcasts.
  // No worker placement service (9.6 then stops in-process work only): an optional member left out.
  const noop = () => undefined;
  const context = {
    getRuntimeConfig: () => cfg,
    getSessionEventSubscriberConnIds: () => new Set(),
    chatAbortControllers: new Map(),
    chatQueuedTurns: new Map(),
    dedupe: new Map(),
    removeChatRun: noop,
    broadcast: noop,
    broadcastToConnIds: noop,
    nodeSendToSession: noop,
    logGateway: { info: noop, warn: noop, error: noop, debug: noop },
  };
  let answer = null;
  await HANDLERS[method]({
    req: { id: "1", method, params },
    params,
    respond: (ok, payload, error) => {
      answer = { ok, payload, error };
    },
    context,
    client: null,
    isWebchatConnect: () => false,
  });
  if (!answer?.ok) throw new Error(`${method} ${JSON.stringify(params)}: ${JSON.stringify(answer?.error ?? "no answer")}`);
  return answer.payload;
}

/** The id a compaction or reset boundary keeps from: the `keep`-th message from the end of the branch (0: an id on no path). */
function keptId(sm, keep = 1) {
  const messages = sm.getBranch().filter((e) => e.type === "message");
  if (keep === 0) return messages.length > 0 ? "not-on-this-branch" : undefined;
  return (messages.at(-keep) ?? messages[0])?.id;
}

/**
 * A compaction row through SessionManager.appendCompaction, then the run's store update. Optional:
 * `summary` (default a scripted one; "" and fallback texts are written as given), `keep` (which
 * message the context keeps from, counted from the end; 0: none), `tokensAfter` (9.6 only).
 */
async function compaction(step) {
  const entry = entryOf(step.key);
  if (!entry?.sessionId || (FILES && !fs.existsSync(entry.sessionFile ?? ""))) return { skipped: "no transcript" };
  const sm = fns.SessionManager.open(transcriptOf(step.key, entry.sessionId, entry.sessionFile));
  const keep = keptId(sm, step.keep);
  if (!keep) return { skipped: "no message" };
  const summary = step.summary ?? "Earlier: the user asked scripted questions and got scripted answers.";
  const id = FILES
    ? sm.appendCompaction(summary, keep, 4200)
    : sm.appendCompaction(summary, keep, 4200, undefined, undefined, undefined, step.tokensAfter);
  await afterRun(step.key, entry.sessionId, { compactionCount: 1 });
  return { sessionId: entry.sessionId, entryId: id ?? null, firstKeptEntryId: keep };
}

/** 9.6: a reset row that keeps a tail (SessionManager.appendResetBoundary, as OpenClaw's transcript rewrite writes one). */
async function resetBoundary(step) {
  if (FILES) return { skipped: "2026.7.1 writes no reset rows" };
  const entry = entryOf(step.key);
  if (!entry?.sessionId) return { skipped: "no transcript" };
  const sm = fns.SessionManager.open(transcriptOf(step.key, entry.sessionId, entry.sessionFile));
  const keep = keptId(sm, step.keep ?? 2);
  if (!keep) return { skipped: "no message" };
  return { sessionId: entry.sessionId, entryId: sm.appendResetBoundary(step.reason ?? "reset", keep) ?? null, firstKeptEntryId: keep };
}

const RUN = {
  turn,
  command,
  reset: gatewayReset,
  delete: (s) => gateway("sessions.delete", { key: s.key, deleteTranscript: s.deleteTranscript !== false }),
  trim: (s) => gateway("sessions.compact", { key: s.key, maxLines: s.maxLines }),
  compaction,
  resetBoundary,
};

const log = [];
try {
  for (const step of plan.steps) {
    if (clock) clock.ms = step.at;
    const result = await RUN[step.op](step);
    log.push({ ...step, result: result ?? null });
  }
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ steps: log })}\n`);
process.exit(0);
