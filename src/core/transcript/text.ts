/** Turning message content into the plain text history readers show. */

export type Block = Record<string, unknown>;

const TOOL_CALL_TYPES: ReadonlySet<string> = new Set(["toolCall", "toolUse", "functionCall", "tool_use"]);

export function blocksOf(content: unknown): Block[] {
  if (Array.isArray(content)) return content.filter((b): b is Block => typeof b === "object" && b !== null);
  if (typeof content === "object" && content !== null) return [content as Block];
  return [];
}

/** Block types in order ("text" for a plain string). */
export function contentTypes(content: unknown): string[] {
  if (typeof content === "string") return ["text"];
  return blocksOf(content).map((b) => (typeof b.type === "string" ? b.type : "unknown"));
}

/**
 * String content as is; else the `text` of text blocks joined with "\n", empty ones dropped.
 * `textTypes` lets 9.6 also count `output_text` blocks.
 */
export function contentText(content: unknown, textTypes: ReadonlySet<string> = TEXT_71): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const b of blocksOf(content)) {
    if (typeof b.type === "string" && textTypes.has(b.type) && typeof b.text === "string" && b.text !== "") {
      parts.push(b.text);
    }
  }
  return parts.join("\n");
}

export const TEXT_71: ReadonlySet<string> = new Set(["text"]);
export const TEXT_96: ReadonlySet<string> = new Set(["text", "output_text"]);

/** Tool names of the tool-call blocks. */
export function toolCallNames(content: unknown): string[] {
  const out: string[] = [];
  for (const b of blocksOf(content)) {
    if (typeof b.type === "string" && TOOL_CALL_TYPES.has(b.type) && typeof b.name === "string") out.push(b.name);
  }
  return out;
}

/** Tool-call ids of the tool-call blocks (for pairing results with calls). */
export function toolCallIds(content: unknown): string[] {
  const out: string[] = [];
  for (const b of blocksOf(content)) {
    if (typeof b.type !== "string" || !TOOL_CALL_TYPES.has(b.type)) continue;
    const id = b.id ?? b.toolUseId ?? b.callId ?? b.call_id;
    if (typeof id === "string") out.push(id);
  }
  return out;
}

/** The id a tool result answers, under any of the spellings OpenClaw accepts. */
export function resultCallId(message: Record<string, unknown>): string | null {
  for (const k of ["toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"]) {
    if (typeof message[k] === "string") return message[k] as string;
  }
  return null;
}

/**
 * 9.6 replaces an empty assistant error turn with a user-facing line. Only the overloaded case
 * is pinned by the corpus; the other wordings are best guesses and marked as such in output.
 */
export function llmErrorText(errorMessage: unknown): string {
  const msg = typeof errorMessage === "string" ? errorMessage.trim() : "";
  const status = httpStatus(msg);
  const reason = errorReason(msg, status);
  if (reason) {
    const where = status !== null ? `${reason}, HTTP ${status}` : reason;
    return `⚠️ LLM request failed (${where}). This is usually temporary — try again shortly.`;
  }
  return `⚠️ LLM request failed (${msg || "unknown error"}).`;
}

function httpStatus(msg: string): number | null {
  const m = /^(\d{3})\b/.exec(msg) ?? /\b(?:HTTP|status)\s*(\d{3})\b/i.exec(msg);
  return m ? Number(m[1]) : null;
}

function errorReason(msg: string, status: number | null): string | null {
  if (status === 529 || /overloaded/i.test(msg)) return "provider overloaded";
  if (status === 429 || /rate.?limit/i.test(msg)) return "rate limited";
  return null;
}

/** The text of thinking blocks joined with "\n" (`thinking` field, or `text` on some providers). */
export function thinkingText(content: unknown): string {
  const parts: string[] = [];
  for (const b of blocksOf(content)) {
    if (b.type !== "thinking" && b.type !== "reasoning") continue;
    const t = typeof b.thinking === "string" ? b.thinking : typeof b.text === "string" ? b.text : "";
    if (t !== "") parts.push(t);
  }
  return parts.join("\n");
}

/** Each tool call's arguments as compact JSON ("" when it has none), in block order. */
export function toolCallArgs(content: unknown): string[] {
  const out: string[] = [];
  for (const b of blocksOf(content)) {
    if (typeof b.type !== "string" || !TOOL_CALL_TYPES.has(b.type) || typeof b.name !== "string") continue;
    const args = b.arguments ?? b.input ?? b.args;
    out.push(args === undefined ? "" : typeof args === "string" ? args : JSON.stringify(args));
  }
  return out;
}
