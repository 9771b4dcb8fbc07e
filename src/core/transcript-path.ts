/**
 * Which file OpenClaw 7.1 reads for a key (openclaw-storage.md §6, corpus README "Behaviours"):
 * the sessionFile resolution, the candidate order and the reset-archive fallback ordering.
 * Pure: existence and directory listings are passed in.
 */
import path from "node:path";
import type { SessionEntry, TranscriptCandidate } from "./model.js";
import { parseArchiveTimestamp, parseGeneratedTranscriptName } from "./names.js";
import { isValidSessionId } from "./store-load.js";
import { isNormalAbsolute } from "./path-within.js";

export interface PathContext {
  sessionsDir: string;
  stateDir: string | null;
  agentId: string;
  homeDir: string;
  /** Channels configured in openclaw.json: their session-key grammar (topics) is active. */
  configuredChannels: ReadonlySet<string>;
}

export const MAX_RESET_ARCHIVE_CANDIDATES = 128;

export function classifyCandidate(sessionId: string, filePath: string): TranscriptCandidate["classification"] {
  const generated = parseGeneratedTranscriptName(path.basename(filePath));
  if (!generated) return "custom";
  return generated.sessionId === sessionId ? "current" : "stale";
}

/**
 * resolveSessionFilePath as measured on 7.1: a relative path stays inside the sessions dir; an
 * absolute path outside it is NOT re-rooted: a `…/agents/<this agent>/sessions/<file>` path is kept
 * verbatim (it points into the old root), anything else falls back to `<sessionsDir>/<id>.jsonl`.
 */
export function resolveSessionFile(sessionId: string, sessionFile: string, ctx: PathContext): string | null {
  const fallback = isValidSessionId(sessionId) ? joinNames(ctx.sessionsDir, `${sessionId.trim()}.jsonl`) : null;
  const trimmed = sessionFile.trim();
  if (!trimmed || trimmed.startsWith("sqlite:")) return fallback;
  if (isNormalAbsolute(ctx.sessionsDir) && isNormalAbsolute(trimmed)) {
    // What path.resolve and path.relative give for these, without their work (one key each, thousands a run).
    const inside =
      trimmed.length > ctx.sessionsDir.length + 1 &&
      trimmed.charCodeAt(ctx.sessionsDir.length) === 47 &&
      trimmed.startsWith(ctx.sessionsDir);
    if (inside && !trimmed.startsWith("..", ctx.sessionsDir.length + 1)) return trimmed;
    return sameAgentShape(trimmed.split("/").filter(Boolean), ctx) ? trimmed : fallback;
  }
  const base = path.resolve(ctx.sessionsDir);
  const resolved = path.resolve(base, trimmed);
  const rel = path.relative(base, resolved);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return resolved;
  if (!path.isAbsolute(trimmed)) return fallback;
  return sameAgentShape(path.normalize(trimmed).split(path.sep).filter(Boolean), ctx) ? path.normalize(trimmed) : fallback;
}

/** An absolute path's parts end in `agents/<this agent>/sessions/<file>`: a path into the old root, kept verbatim. */
function sameAgentShape(parts: string[], ctx: PathContext): boolean {
  const at = parts.lastIndexOf("sessions");
  const agentPart = parts[at - 1];
  return (
    at >= 2 &&
    parts[at - 2] === "agents" &&
    agentPart !== undefined &&
    agentPart === agentPart.toLowerCase() &&
    agentPart === ctx.agentId &&
    parts.length - at - 1 === 1 &&
    parts[at + 1] !== "." &&
    parts[at + 1] !== ".."
  );
}

/** path.join(dir, ...names) where each name is one plain segment, without path's work when `dir` is normal. */
function joinNames(dir: string, ...names: string[]): string {
  const plain = isNormalAbsolute(dir) && names.every((n) => n !== "" && n !== "." && n !== ".." && !n.includes("/"));
  return plain ? `${dir}/${names.join("/")}` : path.join(dir, ...names);
}

const TOPIC_KEY = /:topic:([^:]+)$/;

/**
 * The sessionFile `chat.history` passes to its readers. Without a stored sessionFile, a forum-topic
 * key of a configured channel reads `<id>-topic-<n>.jsonl` (corpus topic-reset, topic:44).
 */
export function readTargetSessionFile(sessionKey: string, entry: SessionEntry, ctx: PathContext): string | undefined {
  if (typeof entry.sessionFile === "string" && entry.sessionFile.trim() !== "") return entry.sessionFile;
  const sessionId = typeof entry.sessionId === "string" ? entry.sessionId.trim() : "";
  const topic = TOPIC_KEY.exec(sessionKey);
  const channel = sessionKey.split(":")[2];
  if (!topic || !channel || !ctx.configuredChannels.has(channel) || !isValidSessionId(sessionId)) return undefined;
  return path.join(ctx.sessionsDir, `${sessionId}-topic-${encodeURIComponent(topic[1]!)}.jsonl`);
}

/** resolveSessionTranscriptCandidates, in OpenClaw's order, duplicates removed. */
export function transcriptCandidatePaths(
  sessionId: string,
  sessionFile: string | undefined,
  ctx: PathContext,
): Array<Omit<TranscriptCandidate, "exists">> {
  const id = sessionId.trim();
  const validId = isValidSessionId(id);
  const resolved = sessionFile === undefined ? null : resolveSessionFile(id, sessionFile, ctx);
  const stale = resolved !== null && classifyCandidate(id, resolved) === "stale";
  const list: string[] = [];
  if (resolved && !stale) list.push(resolved);
  if (validId) list.push(joinNames(ctx.sessionsDir, `${id}.jsonl`));
  if (resolved && stale) list.push(resolved);
  if (ctx.stateDir && validId) list.push(joinNames(ctx.stateDir, "agents", ctx.agentId, "sessions", `${id}.jsonl`));
  if (validId) list.push(joinNames(ctx.homeDir, ".openclaw", "sessions", `${id}.jsonl`));
  return [...new Set(list)].map((p) => ({ path: p, classification: classifyCandidate(id, p) }));
}

/**
 * The `.reset` siblings of one candidate OpenClaw would consider, newest first (timestamp, then
 * name descending), at most 128. Only 7.1 names count: `.zst` and generation suffixes do not.
 */
export function orderResetArchives(candidateBasename: string, siblingNames: readonly string[]): string[] {
  const prefix = `${candidateBasename}.reset.`;
  // OpenClaw's own order (session-transcript-files), localeCompare and all: not core/order.ts byText.
  return siblingNames
    .filter((n) => n.startsWith(prefix))
    .map((name) => ({ name, ts: parseArchiveTimestamp(name, "reset", "7.1") }))
    .filter((a): a is { name: string; ts: number } => a.ts !== null)
    .sort((a, b) => b.ts - a.ts || b.name.localeCompare(a.name))
    .slice(0, MAX_RESET_ARCHIVE_CANDIDATES)
    .map((a) => a.name);
}
