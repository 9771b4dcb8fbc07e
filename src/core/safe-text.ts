/**
 * The one escaper for untrusted text on its way to a terminal or a document. Transcript text comes
 * from chat users and tool output: an ESC sequence could recolour the screen, move the cursor, set
 * the window title or plant a hyperlink, and a bidi override (U+202E) could make text read other
 * than it is. Like `cat -v` and `less`, controls are shown, not obeyed. JSON output is never passed
 * through here: it stays exact.
 */

// C0 except TAB and LF, DEL, C1, and the Unicode bidi controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI).
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");
const UNSAFE_LINE_ALL = new RegExp(`[\\t\\n]|${UNSAFE.source}`, "g");

function shown(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x09) return "\\t";
  if (cp === 0x0a) return "\\n";
  if (cp < 0x20) return `^${String.fromCharCode(cp + 0x40)}`; // ^[ for ESC, ^M for CR, as cat -v
  if (cp === 0x7f) return "^?";
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`; // C1 and bidi controls, as less
}

/** Text with every control except TAB and LF made visible (multi-line bodies). */
export function safeText(s: string): string {
  return UNSAFE.test(s) ? s.replace(UNSAFE_ALL, shown) : s;
}

/** Text for a single-line cell: TAB and LF are shown as `\t` and `\n` too. */
export function safeLine(s: string): string {
  return s.replace(UNSAFE_LINE_ALL, shown);
}

/** True when the text holds a character `safeText` would rewrite. */
export function hasUnsafe(s: string): boolean {
  return UNSAFE.test(s);
}

/** At most `max` characters of untrusted one-line text, made safe. */
export function truncate(s: string, max: number): string {
  const t = safeLine(s);
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One line of a possibly multi-line untrusted text, for folded views (whitespace runs become one space; made safe). */
export function oneLine(s: string, max = 120): string {
  return truncate(s.replace(/\s+/g, " ").trim(), max);
}
