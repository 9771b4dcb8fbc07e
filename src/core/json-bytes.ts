/**
 * Reading JSON text as JSON.stringify writes it (no whitespace) straight from its UTF-8 bytes, one
 * string at a time: never the whole text as one string, nor an array of all its strings. A kept
 * answer's reads on 100,000 archives (store/cache/kept-reads.ts) were a 26 MB text and 200,000
 * strings held at once, only to be compared in turn with what the disk holds now.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class JsonBytesCursor {
  /** Where the next token starts. */
  pos = 0;
  /** The first backslash at or after `pos` (bytes.length when none): a string before it has no escape. */
  #backslash = -1;

  constructor(readonly bytes: Buffer) {}

  /** Whether `text` (ASCII) comes next; the cursor is then past it. */
  literal(text: string): boolean {
    const { bytes, pos } = this;
    if (pos + text.length > bytes.length) return false;
    for (let i = 0; i < text.length; i++) if (bytes[pos + i] !== text.charCodeAt(i)) return false;
    this.pos = pos + text.length;
    return true;
  }

  /** The JSON string that comes next, decoded, with the cursor past it; null when none does. */
  string(): string | null {
    const { bytes } = this;
    const start = this.pos + 1;
    if (bytes[this.pos] !== QUOTE) return null;
    const end = bytes.indexOf(QUOTE, start);
    if (end < 0) return null;
    if (this.#backslash < start) {
      const next = bytes.indexOf(BACKSLASH, start);
      this.#backslash = next < 0 ? bytes.length : next;
    }
    if (this.#backslash > end) {
      this.pos = end + 1;
      return bytes.toString("utf8", start, end);
    }
    return this.#escaped(start);
  }

  /** Past the JSON string that comes next, not decoded: false when none does. */
  skipString(): boolean {
    const { bytes } = this;
    if (bytes[this.pos] !== QUOTE) return false;
    for (let from = this.pos + 1; ; ) {
      const end = bytes.indexOf(QUOTE, from);
      if (end < 0) return false;
      // A quote after an odd run of backslashes is escaped: part of the string.
      let run = 0;
      while (end - run - 1 > this.pos && bytes[end - run - 1] === BACKSLASH) run++;
      if (run % 2 === 0) {
        this.pos = end + 1;
        return true;
      }
      from = end + 1;
    }
  }

  /** A string with an escape in it: its end found past each escape, and JSON.parse's reading of it. */
  #escaped(start: number): string | null {
    const { bytes } = this;
    let i = start;
    while (i < bytes.length && bytes[i] !== QUOTE) i += bytes[i] === BACKSLASH ? 2 : 1;
    if (i >= bytes.length) return null;
    try {
      const value: unknown = JSON.parse(bytes.toString("utf8", start - 1, i + 1));
      if (typeof value !== "string") return null;
      this.pos = i + 1;
      return value;
    } catch {
      return null;
    }
  }

  /** Whether every byte has been read. */
  atEnd(): boolean {
    return this.pos === this.bytes.length;
  }
}
