/**
 * Fixed-width text tables: one row a line, two spaces between columns, no rules (fast on 10,000
 * rows, and every line is one record for grep). With a known width (a terminal, or COLUMNS) the
 * widest shrinkable columns give way until the table fits; a cut keeps both ends of names and
 * paths (the end tells archives apart) and the start of free text. Without a width (a pipe) every
 * cell is printed whole, so the form is stable.
 */
import type { Style } from "./style.js";
import { safeLine } from "../core/safe-text.js";

export interface Column {
  head: string;
  align?: "left" | "right";
  /** How a cell gives way: "middle" for names and paths, "end" for prose, "none" never. */
  cut?: "middle" | "end" | "none";
  /** Narrowest width the column may shrink to (default: 8). */
  min?: number;
}

/** A cell: plain text, optionally painted after it has been cut and padded (colour never counts as width). */
export type Cell = string | number | { text: string; paint?: (s: string) => string };

const ASCII = /^[\x20-\x7e]*$/;

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function charWidth(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200d) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Terminal columns a string takes (no escape sequences expected: cells are plain text). */
export function displayWidth(s: string): number {
  if (ASCII.test(s)) return s.length;
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0)!);
  return w;
}

function takeStart(s: string, width: number): string {
  let w = 0;
  let out = "";
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width) break;
    out += ch;
    w += cw;
  }
  return out;
}

function takeEnd(s: string, width: number): string {
  const chars = [...s];
  let w = 0;
  let i = chars.length;
  while (i > 0) {
    const cw = charWidth(chars[i - 1]!.codePointAt(0)!);
    if (w + cw > width) break;
    w += cw;
    i -= 1;
  }
  return chars.slice(i).join("");
}

/** At most `width` columns, the end cut off: "first user mess…". */
export function cutEnd(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 1) return "…".slice(0, width);
  return `${takeStart(s, width - 1)}…`;
}

/** At most `width` columns, the middle cut out so both ends stay: "9648af9a-…T09-15-21.500Z.zst". */
export function cutMiddle(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  if (width <= 1) return "…".slice(0, width);
  const tail = Math.ceil((width - 1) * 0.6);
  return `${takeStart(s, width - 1 - tail)}…${takeEnd(s, tail)}`;
}

/** A run of text and how it is painted (colour is applied after wrapping, so widths are plain text). */
export type Span = readonly [text: string, paint?: (s: string) => string];

/**
 * Spans wrapped at word boundaries into lines of at most `width` columns (`next`: the width of
 * every line after the first); a word longer than a line is cut across lines. Each line comes back
 * painted. Spaces at a break are dropped.
 */
export function wrapSpans(spans: readonly Span[], width: number, next = width): string[] {
  type Word = { text: string; span: number; space: boolean };
  const words: Word[] = spans.flatMap(([text], span) =>
    text
      .split(/(\s+)/)
      .filter((t) => t !== "")
      .map((t) => ({ text: t, span, space: /^\s/.test(t) })),
  );
  const lines: Word[][] = [[]];
  let used = 0;
  const room = () => (lines.length === 1 ? width : next);
  const breakLine = () => {
    const line = lines[lines.length - 1]!;
    while (line.length > 0 && line[line.length - 1]!.space) line.pop();
    lines.push([]);
    used = 0;
  };
  for (const w of words) {
    if (w.space && used === 0) continue;
    let text = w.text;
    let wide = displayWidth(text);
    if (used + wide > room() && used > 0) {
      breakLine();
      if (w.space) continue;
    }
    // A word wider than a whole line: as much as fits, then the rest on the next lines.
    while (wide > room() - used && room() - used > 0 && used === 0) {
      const part = takeStart(text, room());
      lines[lines.length - 1]!.push({ ...w, text: part });
      breakLine();
      text = text.slice(part.length);
      wide = displayWidth(text);
    }
    if (text !== "") {
      lines[lines.length - 1]!.push({ ...w, text });
      used += wide;
    }
  }
  if (lines.length > 1 && lines[lines.length - 1]!.length === 0) lines.pop();
  return lines.map((line) => {
    let out = "";
    for (let i = 0; i < line.length; ) {
      // One escape sequence per span's run, not per word.
      const span = line[i]!.span;
      const paint = spans[span]![1];
      let run = "";
      for (; i < line.length && line[i]!.span === span; i++) run += line[i]!.text;
      out += paint ? paint(run) : run;
    }
    return out;
  });
}

/**
 * The width output must fit: the terminal's columns, else $COLUMNS, else 80 on a TTY that reports
 * none; null (no limit) for a pipe or file.
 */
export function outputWidth(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number | null {
  if (stream.isTTY && typeof stream.columns === "number" && stream.columns > 0) return stream.columns;
  const cols = Number(env.COLUMNS);
  if (Number.isInteger(cols) && cols > 0) return cols;
  return stream.isTTY ? 80 : null;
}

const GAP = 2;

function cellText(c: Cell): string {
  return typeof c === "object" ? c.text : String(c);
}

/** Column widths: natural widths, then the widest shrinkable column narrowed one step at a time. */
function fitWidths(columns: Column[], texts: string[][], width: number | null): number[] {
  const widths = columns.map((c, i) => texts.reduce((w, row) => Math.max(w, displayWidth(row[i] ?? "")), displayWidth(c.head)));
  if (width === null) return widths;
  let total = widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  // Give way in proportion: always narrow the currently widest column that still can; first down
  // to each column's minimum, then (a very narrow terminal) down to a few characters.
  for (const floorOf of [(c: Column) => c.min ?? 8, () => 4]) {
    while (total > width) {
      let best = -1;
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i]!;
        if (c.cut === "none" || widths[i]! <= Math.max(floorOf(c), 1)) continue;
        if (best < 0 || widths[i]! > widths[best]!) best = i;
      }
      if (best < 0) break;
      const next = widths
        .filter((w, i) => i !== best && columns[i]!.cut !== "none" && w < widths[best]!)
        .reduce((a, b) => Math.max(a, b), 0);
      const floor = Math.max(floorOf(columns[best]!), 1, next);
      const step = Math.max(1, Math.min(total - width, widths[best]! - floor));
      widths[best] = widths[best]! - step;
      total -= step;
    }
  }
  return widths;
}

function pad(s: string, w: number, align: "left" | "right"): string {
  const room = w - displayWidth(s);
  if (room <= 0) return s;
  return align === "right" ? " ".repeat(room) + s : s + " ".repeat(room);
}

/**
 * Renders a table. Cell text passes through `safeLine` (untrusted names and previews never carry
 * controls to the terminal); trailing spaces are trimmed.
 */
export function renderTable(columns: Column[], rows: Cell[][], opts: { width: number | null; style: Style }): string {
  return [...tableLines(columns, rows, opts)].join("");
}

/** renderTable's lines, each with its "\n", made as they are taken: a long table is never one string. */
export function* tableLines(columns: Column[], rows: Cell[][], opts: { width: number | null; style: Style }): Generator<string> {
  const texts = rows.map((r) => r.map((c) => safeLine(cellText(c))));
  const widths = fitWidths(columns, texts, opts.width);
  const fit = (s: string, i: number) => {
    const c = columns[i]!;
    const w = widths[i]!;
    if (displayWidth(s) <= w) return s;
    return c.cut === "end" ? cutEnd(s, w) : cutMiddle(s, w);
  };
  const last = columns.length - 1;
  const line = (cells: string[], paints: Array<((s: string) => string) | undefined>) =>
    cells
      .map((s, i) => {
        const shown = pad(fit(s, i), i === last && columns[i]!.align !== "right" ? 0 : widths[i]!, columns[i]!.align ?? "left");
        const paint = paints[i];
        return paint ? paint(shown) : shown;
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  const head = line(
    columns.map((c) => c.head),
    columns.map(() => (opts.style.level > 0 ? opts.style.c.bold : undefined)),
  );
  yield `${head}\n`;
  for (let r = 0; r < rows.length; r++) {
    yield `${line(
      texts[r]!,
      rows[r]!.map((c) => (typeof c === "object" ? c.paint : undefined)),
    )}\n`;
  }
}
