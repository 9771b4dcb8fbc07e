/**
 * Child process: calls OpenClaw 2026.9.6's real gateway `chat.history` handler
 * (`chatHistoryHandlers["chat.history"]`, src/gateway/server-methods/chat-history-handler.ts)
 * offline, on a state dir, with the params the corpus oracle used ({sessionKey, agentId,
 * limit: 1000}). No gateway runs: the request context is OpenClaw's own minimal in-process one
 * (`createLocalGatewayRequestContext`, src/gateway/local-request-context.ts, what embedded local
 * agent runs get) with its session-row projection initialized, config from `getRuntimeConfig`,
 * and an operator client holding the admin scope. The dist chunk names are content hashes, so
 * each function is found by its definition (`lib/dist-functions.mjs`).
 * Prints one JSON line: {ok, retries, sessionId, messages: [{role, kind?, text}], error?, raw?} where `text`
 * is the string content, or the `text` of the text / output_text blocks joined with "\n" (as the
 * corpus README projects it), and `raw` is the whole response when the request asked for it.
 * argv: <openclaw package dir> <state dir> <json {agentId, sessionKey, raw?}>
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { distFunctions } from "./dist-functions.mjs";

const [oc, stateDir, json] = process.argv.slice(2);
const req = JSON.parse(json);
process.env.OPENCLAW_STATE_DIR = stateDir;

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-history96-"));
let fns;
try {
  fns = await distFunctions(oc, {
    exported: ["chatHistoryHandlers", "getRuntimeConfig"],
    hidden: ["createLocalGatewayRequestContext"],
    tmpDir,
  });
} finally {
  fs.rmSync(tmpDir, { recursive: true, force: true });
}
const { chatHistoryHandlers, getRuntimeConfig, createLocalGatewayRequestContext } = fns;

const context = createLocalGatewayRequestContext({ deps: {}, getRuntimeConfig });
await context.ensureSessionRowProjection();
const client = {
  connId: "conformance-chat-history",
  connect: {
    role: "operator",
    scopes: ["operator.admin", "operator.read", "operator.write"],
    client: { id: "cli", mode: "cli", version: "conformance", platform: process.platform },
  },
};

/** One chat.history request; its first response. */
async function ask() {
  const responses = [];
  await chatHistoryHandlers["chat.history"]({
    req: { type: "req", id: "conformance-chat-history", method: "chat.history" },
    params: { sessionKey: req.sessionKey, agentId: req.agentId, limit: 1000 },
    respond: (ok, payload, error) => responses.push({ ok, payload, error }),
    client,
    context,
    isWebchatConnect: () => false,
  });
  if (responses.length === 0) throw new Error("chat.history completed without a response");
  return responses[0];
}

// A retryable answer ("session history is rebuilding", after a store write OpenClaw did not make
// itself) is asked again after the wait it names, as OpenClaw's own clients do; `retries` says how often.
let first = await ask();
let retries = 0;
while (!first.ok && first.error?.retryable && retries < 40) {
  await new Promise((resolve) => setTimeout(resolve, first.error.retryAfterMs ?? 250));
  retries += 1;
  first = await ask();
}

const BLOCK_TEXT = new Set(["text", "output_text"]);
const text = (c) =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c
          .filter((p) => BLOCK_TEXT.has(p?.type) && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n")
      : "";
const out = {
  ok: first.ok,
  retries,
  sessionId: first.payload?.sessionId ?? null,
  messages: (first.payload?.messages ?? []).map((m) => ({
    role: m.role,
    ...(m.__openclaw?.kind !== undefined ? { kind: m.__openclaw.kind } : {}),
    text: text(m.content),
  })),
};
if (!first.ok) out.error = first.error;
if (req.raw) out.raw = first.payload ?? null;
process.stdout.write(`${JSON.stringify(out)}\n`);
// The session-row projection and SQLite workers keep handles open; the answer is out.
process.exit(0);
