/**
 * Child process for the restore checks: reads one key through OpenClaw 2026.9.6's plugin SDK
 * (getSessionEntry, loadTranscriptEventsSync, SessionManager.open(...).buildSessionContext()) and,
 * with `append`, appends one user message the way an OpenClaw run does. Prints one JSON line.
 * argv: <openclaw package dir> <state dir> <json {agentId, sessionKey, sessionIds?, append?}>
 */
const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;
const store = await import(`${oc}/dist/plugin-sdk/session-store-runtime.js`);
const agent = await import(`${oc}/dist/plugin-sdk/agent-sessions.js`);
const storePath = `${stateDir}/agents/${req.agentId}/sessions/sessions.json`;
const base = { agentId: req.agentId, sessionKey: req.sessionKey, storePath };
const text = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p?.text ?? "").join("") : "");
const entry = store.getSessionEntry(base);
const out = {
  entry: entry ? { sessionId: entry.sessionId, updatedAt: entry.updatedAt, previousSessionId: entry.previousSessionId ?? null } : null,
  windows: {},
};
if (entry) {
  const target = { ...base, sessionId: entry.sessionId };
  if (req.append)
    out.appended = agent.SessionManager.open(target).appendMessage({ role: "user", content: req.append, timestamp: Date.now() });
  const events = store.loadTranscriptEventsSync(target);
  out.events = events.map((e) => ({ type: e.type, id: e.id ?? null, parentId: e.parentId ?? null }));
  out.context = agent.SessionManager.open(target)
    .buildSessionContext()
    .messages.map((m) => ({ role: m.role, text: text(m.content) }));
}
for (const id of req.sessionIds ?? []) out.windows[id] = store.loadTranscriptEventsSync({ ...base, sessionId: id }).length;
process.stdout.write(`${JSON.stringify(out)}\n`);
