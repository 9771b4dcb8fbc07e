/**
 * Is a transcript no key owns a machine session (cron, heartbeat, subagent…) or a likely human
 * conversation? Guessed from the key when the data names one, the file name, the header cwd and
 * the first user message. Pure.
 */

export type MachineKind = "cron" | "heartbeat" | "subagent" | "hook" | "acp" | "node";

export interface MachineHints {
  sessionKey?: string | null;
  /** Path relative to the sessions dir (subfolders such as `cron/` count). */
  relPath?: string | null;
  cwd?: string | null;
  preview?: string | null;
}

const KINDS: readonly MachineKind[] = ["cron", "heartbeat", "subagent", "hook", "acp", "node"];

function inKey(key: string): MachineKind | null {
  const parts = key.toLowerCase().split(":");
  return KINDS.find((k) => parts.includes(k)) ?? null;
}

const WORD = (k: string) => new RegExp(`(^|[^a-z])${k}([^a-z]|$)`, "i");

export function machineKindOf(h: MachineHints): { kind: MachineKind; via: string } | null {
  if (h.sessionKey) {
    const k = inKey(h.sessionKey);
    if (k) return { kind: k, via: `key ${h.sessionKey}` };
  }
  for (const k of ["cron", "heartbeat", "subagent"] as const) {
    if (h.relPath && WORD(k).test(h.relPath)) return { kind: k, via: `file name ${h.relPath}` };
    if (h.cwd && WORD(k).test(h.cwd)) return { kind: k, via: `header cwd ${h.cwd}` };
  }
  const text = h.preview ?? "";
  if (/HEARTBEAT/.test(text) || /^\s*\[?heartbeat\b/i.test(text)) return { kind: "heartbeat", via: "first message" };
  if (/^\s*\[?cron\b/i.test(text) || /\bcron job\b/i.test(text)) return { kind: "cron", via: "first message" };
  if (/^\s*\[?sub-?agent\b/i.test(text)) return { kind: "subagent", via: "first message" };
  return null;
}
