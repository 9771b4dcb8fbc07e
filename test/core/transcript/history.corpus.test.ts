import { describe, expect, it } from "vitest";
import { projectHistory, projectHistory96, type HistoryItem } from "../../../src/core/transcript/history.js";
import { linesFromEvents } from "../../../src/core/transcript/parse.js";
import { openFile, readExpected, scenarios, statePath } from "./corpus.js";

function cases71() {
  const out: { scenario: string; key: string; file: string; items: any[] }[] = [];
  for (const scenario of scenarios("files")) {
    const exp = readExpected("files", scenario);
    for (const agent of Object.values<any>(exp.oracle)) {
      for (const [key, k] of Object.entries<any>(agent.keys)) {
        const m = k.messages;
        if (m?.transcriptPath) out.push({ scenario, key, file: statePath(scenario, m.transcriptPath), items: m.items });
      }
    }
  }
  return out;
}

const pick = (o: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

const CORE = ["seq", "role", "text", "id", "kind"];
const EXTRA = ["contentTypes", "toolCalls", "toolCallId", "toolName", "isError", "stopReason", "truncated"];

describe("7.1 chat.history projection matches the corpus oracle", () => {
  const cases = cases71();
  it("finds transcript keys", () => expect(cases.length).toBeGreaterThan(10));
  for (const c of cases) {
    it(`${c.scenario} ${c.key}`, async () => {
      const { items } = await projectHistory(openFile(c.file));
      expect(items.map((i) => pick(i as never, CORE))).toEqual(c.items.map((i) => pick(i, CORE)));
      // The richer fields and the entry timestamp agree too.
      expect(items.map((i) => pick(i as never, EXTRA))).toEqual(c.items.map((i) => pick(i, EXTRA)));
      // OpenClaw gives markers no recordTimestamp; we keep the entry's.
      const stamps = (xs: any[], k: string) => xs.filter((i) => i.kind === undefined).map((i) => i[k]);
      expect(stamps(items, "timestamp")).toEqual(stamps(c.items, "recordTimestamp"));
    });
  }
});

function cases96() {
  const out: { scenario: string; key: string; events: unknown[]; messages: any[] }[] = [];
  for (const scenario of scenarios("sqlite")) {
    const exp = readExpected("sqlite", scenario);
    for (const [key, k] of Object.entries<any>(exp.keys)) {
      const sid = k.history?.sessionId ?? k.windows?.currentSessionId;
      const events = sid ? k.transcripts?.[sid]?.events : undefined;
      out.push({ scenario, key, events: events ?? [], messages: k.history?.messages ?? [] });
    }
  }
  return out;
}

describe("9.6 chat.history projection matches the corpus oracle", () => {
  for (const c of cases96()) {
    it(`${c.scenario} ${c.key}`, async () => {
      const { items } = await projectHistory96(linesFromEvents(c.events));
      const mine = items.map((i: HistoryItem) =>
        pick(i as never, ["seq", "role", "text", "id", "kind", "stopReason", "tokensBefore", "tokensAfter"]),
      );
      const theirs = c.messages.map((m) => pick(m, ["seq", "role", "text", "id", "kind", "stopReason", "tokensBefore", "tokensAfter"]));
      expect(mine).toEqual(theirs);
      expect(items.map((i) => i.truncated !== undefined)).toEqual(c.messages.map((m) => m.truncated === true));
    });
  }
});
