import { describe, expect, it } from "vitest";
import { isUsageFact, usageFactOf, type UsageFact } from "../../src/core/usage.js";

/** An assistant turn's line, as OpenClaw writes it. */
function turnLine(usage: Record<string, unknown>): string {
  const message = { role: "assistant", provider: "anthropic", model: "claude", usage, content: [{ type: "text", text: "ok" }] };
  return JSON.stringify({ type: "message", id: "a1", parentId: null, timestamp: "2026-07-01T10:00:00.000Z", message });
}

function factOf(text: string): UsageFact {
  const f = usageFactOf({ lineNo: 3, text, bytes: Buffer.byteLength(text), offset: 0 });
  if (f === null) throw new Error("no fact");
  return f;
}

describe("isUsageFact (a fact read back from the index)", () => {
  it("takes what usageFactOf makes, with or without a cost and a time", () => {
    const f = factOf(turnLine({ input: 10, output: 5, cacheRead: 1, cacheWrite: 0, totalTokens: 16, cost: { total: 0.25 } }));
    expect(f).toMatchObject({ id: "a1", lineNo: 3, output: 5, cost: 0.25 });
    expect(isUsageFact(JSON.parse(JSON.stringify(f)))).toBe(true);
    expect(isUsageFact({ ...f, cost: null, time: null, id: null, provider: null, model: null })).toBe(true);
  });

  it("refuses anything else: not an object, a field of another type, a field missing", () => {
    const f = factOf(turnLine({ input: 1, output: 2 }));
    for (const x of [null, 3, "fact", [f]]) expect(isUsageFact(x)).toBe(false);
    const altered: Array<Partial<Record<keyof UsageFact, unknown>>> = [
      { id: 4 },
      { lineNo: 1.5 },
      { time: "today" },
      { provider: 1 },
      { model: false },
      { input: "1" },
      { output: null },
      { cacheRead: undefined },
      { cacheWrite: {} },
      { totalTokens: "16" },
      { cost: "0.25" },
    ];
    for (const change of altered) expect(isUsageFact({ ...f, ...change }), JSON.stringify(change)).toBe(false);
    const { output: _output, ...missing } = f;
    expect(isUsageFact(missing)).toBe(false);
  });
});
