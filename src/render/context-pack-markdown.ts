/**
 * Markdown reporter for `context-pack`: a document meant to be pasted into a new session or kept
 * as a dated memory note. Turn text is verbatim except for control characters, which are shown
 * as visible symbols (a pack may be printed to a terminal before it is pasted).
 */
import type { ContextPackResult, PackSegment, PackTurn } from "../commands/context-pack.js";
import { safeText as visible } from "../core/safe-text.js";

function where(t: PackTurn): string {
  return t.provenance.store === "sqlite" ? `event ${t.provenance.line}` : `line ${t.provenance.line}`;
}

/** One turn; its length is what `--max-chars` counts. */
export function renderPackTurnMarkdown(t: PackTurn): string {
  const notes = [
    t.isError ? "error" : "",
    t.truncated ? `OpenClaw placeholder: ${t.truncated.reason}` : "",
    t.folded ? `folded from ${t.folded.chars} chars` : "",
    t.cutChars ? `first ${t.cutChars} chars cut by --max-chars` : "",
  ].filter(Boolean);
  const role = t.kind === "compaction" ? "compaction summary" : t.role === "toolResult" ? `tool result (${t.toolName ?? "tool"})` : t.role;
  const head = `**${role}** · ${t.iso ?? "no time"} · segment ${t.segment} #${t.seq} · ${where(t)}${notes.length ? ` · ${notes.join(", ")}` : ""}`;
  const body: string[] = [];
  if (t.thinking) body.push(`(thinking) ${visible(t.thinking)}`);
  if (t.text !== "") body.push(t.role === "toolResult" ? `← ${visible(t.text)}` : visible(t.text));
  for (const call of t.toolCalls ?? []) body.push(`→ ${visible(call)}`);
  return `${head}\n${body.join("\n")}${body.length ? "\n" : ""}\n`;
}

function segmentHeading(s: PackSegment): string {
  const ended = s.current ? "current segment" : `ended: ${s.reason ?? "unknown"}`;
  const src =
    s.store === "sqlite"
      ? s.source === "window"
        ? "SQLite window"
        : "SQLite archive row"
      : s.source === "active"
        ? "active transcript"
        : "archive file";
  return [
    `## Segment ${s.number} · sessionId ${s.sessionId ?? "?"} · ${s.startedAtIso ?? "?"} → ${s.endedAtIso ?? "?"} · ${ended}`,
    ``,
    `Source: ${src} \`${s.path}\``,
    ``,
    ``,
  ].join("\n");
}

function span(s: PackSegment[]): string {
  if (s.length === 0) return "no segment";
  const nums = s.map((x) => x.number);
  return nums.length === 1 ? `segment ${nums[0]}` : `segments ${nums[0]}–${nums.at(-1)}`;
}

export function renderContextPackMarkdown(r: ContextPackResult, tool: { version: string }): string {
  const store = r.stores[0];
  const sel = r.selection;
  const out: string[] = [`# Context pack: \`${r.sessionKey}\``, ""];
  out.push(
    `Earlier conversation of this session key, quoted verbatim from the transcripts (tool calls and tool results folded to one line${sel.thinking ? "" : ", thinking left out"}). Generated ${r.generatedAtIso} by openclaw-sessions ${tool.version}, read-only.`,
    "",
  );
  if (store) out.push(`- Store: \`${store.storePath}\` (${store.era === "sqlite" ? "SQLite" : "file-backed"}, agent \`${store.agentId}\`)`);
  const what =
    sel.compaction !== undefined
      ? `what compaction ${sel.compaction} took from the model (\`${r.compaction?.show ?? `openclaw-sessions compactions ${r.sessionKey} --show ${sel.compaction}`}\`)`
      : sel.segments !== null
        ? `the last ${sel.segments} segment${sel.segments === 1 ? "" : "s"} before the current one`
        : `turns since ${sel.sinceIso}`;
  const current =
    r.currentSegment === null
      ? "the key has no current segment"
      : sel.includeCurrent
        ? `current segment ${r.currentSegment} included`
        : `current segment ${r.currentSegment} not included`;
  out.push(
    `- Selection: ${what} (${span(r.segments)} of ${r.segmentsTotal}; ${current})${sel.roles ? `, roles ${sel.roles.join(", ")}` : ""}`,
  );
  if (r.compaction) {
    const c = r.compaction;
    const summary =
      c.summary === null
        ? "a gateway trim: no summary"
        : c.summary.trim() === ""
          ? "its summary was empty"
          : `its summary: "${c.summary.replace(/\s+/g, " ").slice(0, 200)}"`;
    out.push(
      `- Compaction ${c.number} at ${c.iso ?? "?"} (segment ${c.segment ?? "?"}); ${summary}${c.flags.length ? `; flags ${c.flags.join(", ")}` : ""}`,
    );
  }
  out.push(`- Size: ${r.turns.length} turn${r.turns.length === 1 ? "" : "s"}, ${r.chars} of at most ${sel.maxChars} chars`);
  if (r.cut) {
    const c = r.cut;
    const parts: string[] = [];
    if (c.turns > 0) {
      parts.push(
        `the ${c.turns} oldest turn${c.turns === 1 ? "" : "s"} (${c.fromIso ?? "?"} → ${c.toIso ?? "?"}, ${c.chars} chars, segment${c.segments.length === 1 ? "" : "s"} ${c.segments.join(", ")}) left out`,
      );
    }
    if (c.partialTurn)
      parts.push(`the first ${c.partialTurn.chars} chars of segment ${c.partialTurn.segment} #${c.partialTurn.seq} left out`);
    const first = c.segments[0] ?? c.partialTurn?.segment;
    out.push(
      `- Cut by --max-chars: ${parts.join("; ")}. Read them with \`openclaw-sessions history ${r.sessionKey} --segment ${first} --json\`.`,
    );
  } else {
    out.push("- Cut: nothing");
  }
  const head = `${out.join("\n")}\n\n`;
  const body: string[] = [];
  let seg = -1;
  const bySegment = new Map(r.segments.map((s) => [s.number, s]));
  for (const t of r.turns) {
    if (t.segment !== seg) {
      seg = t.segment;
      const s = bySegment.get(seg);
      if (s) body.push(segmentHeading(s));
    }
    body.push(renderPackTurnMarkdown(t));
  }
  if (r.turns.length === 0) body.push("_No turns in the selection._\n");
  // Keys, paths and ids are untrusted too: the whole document passes the one escaper (turns already did).
  return visible(head + body.join(""));
}
