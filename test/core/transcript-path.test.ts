/**
 * OpenClaw's sessionFile resolution and candidate order, whose common case skips path.resolve and
 * path.relative: for every shape of dir and stored path, the same answer as those functions give.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCandidate, resolveSessionFile, transcriptCandidatePaths, type PathContext } from "../../src/core/transcript-path.js";
import { isValidSessionId } from "../../src/core/store-load.js";

/** The rule in path's own terms (resolveSessionFilePath as measured on 7.1). */
function resolveByPath(sessionId: string, sessionFile: string, ctx: PathContext): string | null {
  const fallback = isValidSessionId(sessionId) ? path.join(ctx.sessionsDir, `${sessionId.trim()}.jsonl`) : null;
  const trimmed = sessionFile.trim();
  if (!trimmed || trimmed.startsWith("sqlite:")) return fallback;
  const base = path.resolve(ctx.sessionsDir);
  const resolved = path.resolve(base, trimmed);
  const rel = path.relative(base, resolved);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return resolved;
  if (!path.isAbsolute(trimmed)) return fallback;
  const parts = path.normalize(trimmed).split(path.sep).filter(Boolean);
  const at = parts.lastIndexOf("sessions");
  const agentPart = parts[at - 1];
  const kept =
    at >= 2 &&
    parts[at - 2] === "agents" &&
    agentPart === ctx.agentId &&
    agentPart === agentPart.toLowerCase() &&
    parts.length - at - 1 === 1 &&
    parts[at + 1] !== "." &&
    parts[at + 1] !== "..";
  return kept ? path.normalize(trimmed) : fallback;
}

function candidatesByPath(sessionId: string, sessionFile: string | undefined, ctx: PathContext) {
  const id = sessionId.trim();
  const valid = isValidSessionId(id);
  const resolved = sessionFile === undefined ? null : resolveByPath(id, sessionFile, ctx);
  const stale = resolved !== null && classifyCandidate(id, resolved) === "stale";
  const list: string[] = [];
  if (resolved && !stale) list.push(resolved);
  if (valid) list.push(path.join(ctx.sessionsDir, `${id}.jsonl`));
  if (resolved && stale) list.push(resolved);
  if (ctx.stateDir && valid) list.push(path.join(ctx.stateDir, "agents", ctx.agentId, "sessions", `${id}.jsonl`));
  if (valid) list.push(path.join(ctx.homeDir, ".openclaw", "sessions", `${id}.jsonl`));
  return [...new Set(list)].map((p) => ({ path: p, classification: classifyCandidate(id, p) }));
}

const ID = "0f6c1f9e-2b7a-4c1e-9d3a-5e8f7a6b4c21";
const OTHER = "7d2e4c1a-9b8f-4e3d-a6c5-1b2a3c4d5e6f";
const DIRS = [
  "/s/.openclaw/agents/main/sessions",
  "/s/.openclaw/agents/main/sessions/",
  "/s//x/sessions",
  "/s/./sessions",
  "/s/a/../sessions",
  "/",
  "rel/sessions",
  "/s/.hidden/..x/sessions",
];
const FILES = [
  `${ID}.jsonl`,
  `/s/.openclaw/agents/main/sessions/${ID}.jsonl`,
  `/s/.openclaw/agents/main/sessions/${OTHER}.jsonl`,
  `/s/.openclaw/agents/main/sessions/..odd.jsonl`,
  `/s/.openclaw/agents/main/sessions`,
  `/s/.openclaw/agents/main/sessions/`,
  `/s/.openclaw/agents/main/sessions/sub/${ID}.jsonl`,
  `/old/root/agents/main/sessions/${ID}.jsonl`,
  `/old/root/agents/Main/sessions/${ID}.jsonl`,
  `/old/root/agents/main/sessions/../${ID}.jsonl`,
  `/old//root/./agents/main/sessions/${ID}.jsonl`,
  `/elsewhere/${ID}.jsonl`,
  `../${ID}.jsonl`,
  `./sub/${ID}.jsonl`,
  `custom-name.jsonl`,
  `  /s/.openclaw/agents/main/sessions/${ID}.jsonl  `,
  "sqlite:agent/main",
  "",
  "/",
];

describe("resolveSessionFile and transcriptCandidatePaths", () => {
  it("give what path.resolve / path.relative / path.join give, for every dir and stored path shape", () => {
    let compared = 0;
    for (const sessionsDir of DIRS)
      for (const sessionFile of [...FILES, ...DIRS.map((d) => `${d}/${ID}.jsonl`)])
        for (const sessionId of [ID, ` ${ID} `, "../bad", "main"])
          for (const agentId of ["main", "Main"]) {
            const ctx: PathContext = {
              sessionsDir,
              stateDir: "/s/.openclaw",
              agentId,
              homeDir: "/home/ana",
              configuredChannels: new Set(),
            };
            const what = `${sessionsDir} | ${sessionFile} | ${sessionId} | ${agentId}`;
            expect(resolveSessionFile(sessionId, sessionFile, ctx), what).toBe(resolveByPath(sessionId, sessionFile, ctx));
            expect(transcriptCandidatePaths(sessionId, sessionFile, ctx), what).toEqual(candidatesByPath(sessionId, sessionFile, ctx));
            compared += 1;
          }
    expect(compared).toBe(DIRS.length * (FILES.length + DIRS.length) * 8);
  });

  it("keeps a stored path inside the sessions dir, and an old root's path of this agent, verbatim", () => {
    const ctx: PathContext = {
      sessionsDir: "/s/agents/main/sessions",
      stateDir: "/s",
      agentId: "main",
      homeDir: "/h",
      configuredChannels: new Set(),
    };
    expect(resolveSessionFile(ID, `/s/agents/main/sessions/${ID}.jsonl`, ctx)).toBe(`/s/agents/main/sessions/${ID}.jsonl`);
    expect(resolveSessionFile(ID, `/old/agents/main/sessions/${ID}.jsonl`, ctx)).toBe(`/old/agents/main/sessions/${ID}.jsonl`);
    expect(resolveSessionFile(ID, `/old/agents/other/sessions/${ID}.jsonl`, ctx)).toBe(`/s/agents/main/sessions/${ID}.jsonl`);
    expect(resolveSessionFile(ID, `/s/agents/main/sessions/..x.jsonl`, ctx)).toBe(`/s/agents/main/sessions/..x.jsonl`);
  });
});
