/**
 * The shipped SKILL.md, executed: every command it teaches runs on the corpus, and the JSON that
 * comes back has every field the text tells the agent to expect (the `JSON:` line under each
 * command), plus the relations the text states (segment numbering, current segment, grep match →
 * segment, context-pack cut).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT, scenarioDir } from "../helpers/corpus.js";

const SKILL = fs.readFileSync(path.join(ROOT, "skills/openclaw-sessions/SKILL.md"), "utf8");

interface Taught {
  command: string;
  fields: string[];
}

/** Each ```sh block with the `JSON:` line that follows it. */
function taught(): Taught[] {
  const out: Taught[] = [];
  const re = /```sh\n([^\n]+)\n```\n\nJSON: ([^\n]+)/g;
  for (const m of SKILL.matchAll(re)) out.push({ command: m[1]!.trim(), fields: [...m[2]!.matchAll(/`([^`]+)`/g)].map((f) => f[1]!) });
  return out;
}

/** Every value at a path like `segments[].endReason.kind`; [] when an object along it lacks the key. Arrays may be empty, values null. */
function at(doc: unknown, field: string): unknown[] {
  let cur: unknown[] = [doc];
  for (const part of field.split(".")) {
    const many = part.endsWith("[]");
    const key = many ? part.slice(0, -2) : part;
    const next: unknown[] = [];
    for (const v of cur) {
      // null stands for "none here" (the current segment's endReason); the relations below check those.
      if (v === null) continue;
      if (typeof v !== "object" || !(key in v)) return [];
      const got = (v as Record<string, unknown>)[key];
      if (many) {
        if (!Array.isArray(got)) return [];
        next.push(...got);
      } else next.push(got);
    }
    cur = next;
  }
  return cur;
}

/** Shell words of a taught command (quotes only, no expansions), placeholders filled in. */
function argv(command: string, fill: Record<string, string>): string[] {
  const words = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  expect(words[0]).toBe("openclaw-sessions");
  return words.slice(1).map((w) =>
    w.replace(/<(\w+)>/g, (_, name: string) => {
      expect(fill, `placeholder <${name}> in ${command}`).toHaveProperty(name);
      return fill[name]!;
    }),
  );
}

const STORES = [
  {
    name: "reset-chain (files)",
    state: path.join(scenarioDir("files", "reset-chain"), "state"),
    key: "agent:main:telegram:direct:424242",
    text: "milk",
  },
  {
    name: "sqlite-reset (SQLite)",
    state: path.join(scenarioDir("sqlite", "sqlite-reset"), "state"),
    key: "agent:main:main",
    text: "weekend",
  },
];

describe("the shipped SKILL.md", () => {
  it("is in OpenClaw's format: frontmatter with name, a short description, metadata.openclaw.requires.bins", () => {
    const fm = /^---\n([\s\S]*?)\n---\n/.exec(SKILL)?.[1] ?? "";
    expect(fm).toMatch(/^name: openclaw-sessions$/m);
    const description = /^description: "(.*)"$/m.exec(fm)?.[1] ?? "";
    expect(description.length).toBeGreaterThan(20);
    expect(description.length).toBeLessThanOrEqual(160);
    expect(fm).toContain('"requires": { "bins": ["openclaw-sessions"] }');
  });

  it("teaches the five steps and forbids restore", () => {
    const commands = taught().map((t) => t.command.split(" ")[1]);
    expect(commands).toEqual(["ls", "timeline", "grep", "history", "context-pack"]);
    expect(SKILL).toMatch(/Never run `openclaw-sessions restore`/);
    expect(taught().some((t) => /\brestore\b/.test(t.command))).toBe(false);
  });

  for (const store of STORES) {
    describe(`on ${store.name}`, () => {
      const run = async (t: Taught, fill: Record<string, string>) => {
        const r = await cli([...argv(t.command, fill), "--state-dir", store.state]);
        expect(r.code, `${t.command}\n${r.stderr}`).toBe(0);
        const doc = r.json();
        for (const f of t.fields) expect(at(doc, f).length, `${t.command}: field ${f}`).toBeGreaterThan(0);
        return doc;
      };

      it("every taught command returns every field the skill names, and the relations it states hold", async () => {
        const [ls, timeline, grep, history, pack] = taught();
        const listed = await run(ls!, {});
        expect(listed.sessions.map((s: { sessionKey: string }) => s.sessionKey)).toContain(store.key);

        const tl = await run(timeline!, { key: store.key });
        // "Segments are oldest first; the last one has current: true"; every other one ended with a reset.
        expect(tl.segments.map((s: { index: number }) => s.index)).toEqual(tl.segments.map((_: unknown, i: number) => i));
        expect(tl.segments.at(-1).current).toBe(true);
        expect(tl.segments.slice(0, -1).every((s: { current: boolean }) => !s.current)).toBe(true);
        expect(tl.resets).toBe(tl.segments.length - 1);
        for (const s of tl.segments.slice(0, -1))
          expect(["daily", "idle", "manual", "error", "deleted", "unknown"]).toContain(s.endReason.kind);

        const found = await run(grep!, { key: store.key, text: store.text });
        // "A match belongs to the first timeline segment with the same path whose endedAt is null or at or after
        // the match's timestampMs; … the message with the same lineNo."
        expect(found.matches.length).toBeGreaterThan(0);
        for (const m of found.matches) {
          const seg = tl.segments.find(
            (s: { path: string; endedAt: number | null }) => s.path === m.path && (s.endedAt === null || s.endedAt >= m.timestampMs),
          );
          expect(seg, `segment of match ${m.snippet}`).toBeDefined();
          const read = await run(history!, { key: store.key, n: String(seg.index + 1) });
          const hit = read.messages.find((x: { lineNo: number }) => x.lineNo === m.lineNo);
          expect(hit?.text, `match ${m.snippet} in segment ${seg.index + 1}`).toContain(store.text);
        }

        // "<n> is the timeline index + 1; each message's segment is that index."
        for (const s of tl.segments) {
          const read = await run(history!, { key: store.key, n: String(s.index + 1) });
          expect(read.segments.map((x: { index: number }) => x.index)).toEqual([s.index]);
          expect(read.messages.every((x: { segment: number }) => x.segment === s.index)).toBe(true);
          expect(read.segments[0].sessionId).toBe(s.sessionId);
        }

        // "A --segment past the last exits 2 with error.code SEGMENT_OUT_OF_RANGE and error.segments."
        const past = await cli([
          ...argv(history!.command, { key: store.key, n: String(tl.segments.length + 1) }),
          "--state-dir",
          store.state,
        ]);
        expect(past.code).toBe(2);
        expect(past.json().error).toMatchObject({ code: "SEGMENT_OUT_OF_RANGE", segments: tl.segments.length });

        const earlier = tl.segments.length - 1;
        const p = await run(pack!, { key: store.key, n: String(earlier) });
        // "--segments <n> takes the last n segments before the current one"; "cut is null when everything fit".
        expect(p.segments.map((s: { number: number }) => s.number)).toEqual(
          tl.segments.slice(0, -1).map((s: { index: number }) => s.index + 1),
        );
        expect(p.cut).toBeNull();
        const capped = await cli([
          ...argv(pack!.command, { key: store.key, n: String(earlier) }).map((w) => (w === "8000" ? "300" : w)),
          "--state-dir",
          store.state,
        ]);
        const c = capped.json();
        for (const f of ["cut.turns", "cut.fromIso", "cut.toIso", "cut.segments"]) expect(at(c, f).length, f).toBeGreaterThan(0);
      });

      it("paging as taught: --limit, meta.hasMore, then --since the last message and skip ids already read", async () => {
        const history = taught()[3]!;
        const first = await cli([
          ...argv(history.command, { key: store.key, n: "1" }).map((w) => (w === "50" ? "2" : w)),
          "--state-dir",
          store.state,
        ]);
        const all = await cli([...argv(history.command, { key: store.key, n: "1" }), "--state-dir", store.state]);
        const page1 = first.json();
        const whole = all.json().messages.map((m: { id: string }) => m.id);
        expect(page1.meta.hasMore).toBe(true);
        const seen = new Set(page1.messages.map((m: { id: string }) => m.id));
        const last = page1.messages.at(-1).iso;
        const next = await cli([...argv(history.command, { key: store.key, n: "1" }), "--since", last, "--state-dir", store.state]);
        const rest = next
          .json()
          .messages.map((m: { id: string }) => m.id)
          .filter((id: string) => !seen.has(id));
        expect([...seen, ...rest]).toEqual(whole);
      });
    });
  }
});
