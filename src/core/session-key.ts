/** What the shape of a session key (`agent:<agentId>:<rest>`) tells, as OpenClaw reads it when it writes a new row. */

/** `agent:<a>:<rest>` → the chat type OpenClaw gives such a key (dashboard/main threads are direct). */
export function chatTypeOfKey(sessionKey: string): "direct" | "group" | "channel" {
  const parts = sessionKey.split(":");
  if (parts.includes("group")) return "group";
  if (parts.includes("channel")) return "channel";
  return "direct";
}

/** session_windows.session_scope as 9.6 sets it for a key. */
export function sessionScopeOfKey(sessionKey: string, mainKey: string): string {
  const parts = sessionKey.split(":");
  if (parts.length === 3 && parts[2] === mainKey) return "shared-main";
  if (parts.includes("group")) return "group";
  if (parts.includes("channel")) return "channel";
  return "conversation";
}

/** The channel segment of `agent:<a>:<channel>:<rest>` (telegram, webchat…); null for `agent:<a>:main` and other shapes. */
export function channelOfKey(sessionKey: string): string | null {
  const parts = sessionKey.split(":");
  return parts.length > 3 && parts[0] === "agent" && parts[2] ? parts[2] : null;
}
