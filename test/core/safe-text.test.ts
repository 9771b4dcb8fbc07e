import { describe, expect, it } from "vitest";
import { hasUnsafe, safeLine, safeText } from "../../src/core/safe-text.js";

describe("safeText / safeLine", () => {
  it("shows C0, DEL, C1 and bidi controls instead of passing them through", () => {
    expect(safeText("a\u001b[31mred\u001b[0m")).toBe("a^[[31mred^[[0m");
    expect(safeText("\u001b]0;title\u0007")).toBe("^[]0;title^G");
    expect(safeText("over\rwrite")).toBe("over^Mwrite");
    expect(safeText("del\u007f")).toBe("del^?");
    expect(safeText("c1\u009b31m")).toBe("c1<U+009B>31m");
    expect(safeText("abc\u202edcba")).toBe("abc<U+202E>dcba");
    expect(safeText("\u2066iso\u2069 \u200f \u061c")).toBe("<U+2066>iso<U+2069> <U+200F> <U+061C>");
  });

  it("keeps TAB and LF in bodies, shows them in single-line cells", () => {
    expect(safeText("a\tb\nc")).toBe("a\tb\nc");
    expect(safeLine("a\tb\nc")).toBe("a\\tb\\nc");
  });

  it("leaves ordinary text, emoji and accents untouched, and is idempotent", () => {
    const s = "Grüße 👋 — 日本語 ✓";
    expect(safeText(s)).toBe(s);
    const once = safeLine("x\u001b[2J\u202ey");
    expect(safeLine(once)).toBe(once);
    expect(hasUnsafe(once)).toBe(false);
  });
});
