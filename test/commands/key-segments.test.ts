/**
 * Segment N means one thing. Over every corpus store and key (both eras, on copies), and on two
 * stores after this tool's own restore: `timeline --json`, `history --archived --json`, `export
 * --archived --format jsonl` and `restore --key K --segment n --json` (dry run, each n) agree on
 * the number of segments and on each segment's first and last message id. Each command is read
 * for what it shows: history's messages per segment, the exported lines cut again at their session
 * headers and reset rows, timeline's and restore's segment fields.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { keySegments } from "../../src/commands/key-segments.js";
import { readStretches } from "../../src/core/key-segments.js";
import type { TranscriptLine } from "../../src/core/transcript/parse.js";
import { cli } from "../helpers/cli.js";
import { copyState, fileScenarios, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";

type Era = "files" | "sqlite";
/** A segment's first and last message id; undefined when the command does not say. */
type Ids = [string | null, string | null] | undefined;

interface Store {
  stateDir: string;
  env: NodeJS.ProcessEnv;
}

function store(era: Era, scenario: string): Store {
  const s = copyState(era, scenario);
  return { stateDir: s.stateDir, env: { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") } };
}

const run = (s: Store, agent: string, ...args: string[]) => cli([...args, "--state-dir", s.stateDir, "--agent", agent], { env: s.env });

/** Every key of the store, with its agent. */
async function keysOf(s: Store): Promise<Array<{ agent: string; key: string }>> {
  const { session } = storeContext({ env: s.env, cwd: "/" });
  const indexes = await session.indexes({ stateDir: s.stateDir, allAgents: true });
  const seen = new Set<string>();
  const out: Array<{ agent: string; key: string }> = [];
  for (const i of indexes) {
    for (const r of i.sessions) {
      const id = `${i.location.agentId} ${r.sessionKey}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ agent: i.location.agentId, key: r.sessionKey });
    }
  }
  return out;
}

/**
 * The JSON a command printed, or why there is none. What it printed counts even when it exits 3
 * afterwards (another file of the store it could not read: not a question of numbering).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function printed(r: { code: number; stdout: string }): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    return `exit ${r.code}`;
  }
}

const idsOf = (x: { firstMessageId?: string | null; lastMessageId?: string | null } | null | undefined): Ids =>
  x && x.firstMessageId !== undefined && x.lastMessageId !== undefined ? [x.firstMessageId, x.lastMessageId] : undefined;

/**
 * `history --archived --json`: the segments it lists, each with the first and last message it
 * shows under it; and which of them are of a transcript with no line at all (an export has no
 * line to show for those).
 */
async function historyView(s: Store, agent: string, key: string): Promise<{ ids: Ids[]; lineless: boolean[] } | string> {
  const h = printed(await run(s, agent, "history", key, "--archived", "--json"));
  if (typeof h === "string") return h;
  const segs = h.segments as Array<{ path: string }>;
  const ids: Ids[] = segs.map(() => [null, null]);
  for (const m of h.messages as Array<{ id: string; kind?: string; segment: number }>) {
    if (m.kind) continue;
    const seg = ids[m.segment]!;
    seg[0] ??= m.id;
    seg[1] = m.id;
  }
  const files = h.meta.files as Array<{ path: string; linesRead: number }>;
  return { ids, lineless: segs.map((x) => files.find((f) => f.path === x.path)?.linesRead === 0) };
}

async function timelineView(s: Store, agent: string, key: string): Promise<Ids[] | string> {
  const t = printed(await run(s, agent, "timeline", key, "--json"));
  if (typeof t === "string") return t;
  return (t.segments as Array<{ firstMessageId?: string | null; lastMessageId?: string | null }>).map(idsOf);
}

/** The exported lines cut into transcripts at their session headers, each cut again at its reset rows. */
async function exportView(s: Store, agent: string, key: string): Promise<Ids[] | string> {
  const r = await run(s, agent, "export", key, "--archived", "--format", "jsonl");
  if (r.code !== 0 && r.stdout === "") return `exit ${r.code}`;
  const docs: string[][] = [];
  for (const text of r.stdout.split("\n")) {
    if (text === "") continue;
    let header = false;
    try {
      header = (JSON.parse(text) as { type?: unknown }).type === "session";
    } catch {
      // not JSON: a line of the transcript it is in
    }
    if (header || docs.length === 0) docs.push([]);
    docs.at(-1)!.push(text);
  }
  const out: Ids[] = [];
  for (const doc of docs) {
    const lines = async function* (): AsyncGenerator<TranscriptLine> {
      for (const [i, text] of doc.entries()) yield { lineNo: i + 1, text, bytes: Buffer.byteLength(text), offset: 0 };
    };
    for (const st of await readStretches(lines)) out.push([st.firstMessageId, st.lastMessageId]);
  }
  return out;
}

/** `restore --key K --segment n --json`, dry run, n = 1, 2, … until it says the key has no segment n. */
async function restoreView(s: Store, agent: string, key: string, bound: number): Promise<Ids[] | string> {
  const out: Ids[] = [];
  for (let n = 1; n <= bound + 2; n++) {
    const r = await run(s, agent, "restore", "--key", key, "--segment", String(n), "--json");
    const doc = printed(r);
    if (doc?.error?.code === "SEGMENT_OUT_OF_RANGE" || doc?.error?.code === "NO_SUCH_SEGMENT") return out;
    if (typeof doc === "string" || (doc.error && !doc.error.segment)) return `segment ${n}: exit ${r.code} ${doc?.error?.code ?? ""}`;
    out.push(idsOf(doc.segment ?? doc.error?.segment));
  }
  return `segment ${bound + 2} still planned`;
}

/** Where the four commands disagree on one key, in words; empty when they agree. */
async function disagreements(s: Store, agent: string, key: string): Promise<string[]> {
  const h = await historyView(s, agent, key);
  const history = typeof h === "string" ? h : h.ids;
  const views: Record<string, Ids[] | string> = {
    timeline: await timelineView(s, agent, key),
    export: await exportView(s, agent, key),
    restore: await restoreView(s, agent, key, typeof history === "string" ? 0 : history.length),
  };
  // A key none of them can read (an unreadable archive: exit 3, named) is an agreement too.
  if (typeof history === "string") {
    const same = (v: Ids[] | string) => (typeof v === "string" ? v.replace(/^segment 1: /, "").startsWith(history) : false);
    return Object.entries(views)
      .filter(([, v]) => !same(v))
      .map(([name, v]) => `${name}: ${typeof v === "string" ? v : `${v.length} segments`}, history ${history}`);
  }
  const out: string[] = [];
  for (const [name, v] of Object.entries(views)) {
    // An exported file with no line (0 bytes) leaves no trace in the lines: compare the others.
    const want = name === "export" && typeof h !== "string" ? history.filter((_, i) => !h.lineless[i]) : history;
    if (typeof v === "string") out.push(`${name}: ${v}`);
    else if (v.length !== want.length) out.push(`${name}: ${v.length} segments, history ${want.length}`);
    else
      v.forEach((ids, i) => {
        if (JSON.stringify(ids) !== JSON.stringify(want[i]))
          out.push(`${name}: segment ${i + 1} is ${JSON.stringify(ids ?? "not told")}, history ${JSON.stringify(want[i])}`);
      });
  }
  return out;
}

async function storeDisagreements(s: Store): Promise<string[]> {
  const out: string[] = [];
  for (const { agent, key } of await keysOf(s)) for (const d of await disagreements(s, agent, key)) out.push(`${agent} ${key}: ${d}`);
  return out;
}

describe("segment N means one thing: timeline, history --archived, export --archived and restore --segment agree", () => {
  const scenarios: Array<[Era, string]> = [
    ...fileScenarios().map((n): [Era, string] => ["files", n]),
    ...sqliteScenarios().map((n): [Era, string] => ["sqlite", n]),
  ];
  for (const [era, scenario] of scenarios) {
    it(`${era}/${scenario}: every key`, async () => {
      expect(await storeDisagreements(store(era, scenario))).toEqual([]);
    }, 120_000);
  }

  it("files/reset-chain after restore --segment 2 --yes: the same 12 messages in history and export, each segment once", async () => {
    const s = store("files", "reset-chain");
    const key = "agent:main:telegram:direct:424242";
    expect((await run(s, "main", "restore", "--key", key, "--segment", "2", "--yes")).code).toBe(0);
    expect(await storeDisagreements(s)).toEqual([]);
    const h = (await run(s, "main", "history", key, "--archived", "--json")).json();
    const texts = (h.messages as Array<{ kind?: string; text: string }>).filter((m) => !m.kind).map((m) => m.text);
    expect(texts).toHaveLength(12);
    const md = (await run(s, "main", "export", key, "--archived", "--format", "md")).stdout;
    expect(md.match(/^\*\*(User|Assistant|Tool result)\*\* · /gm)).toHaveLength(12);
    for (const t of texts) if (t.trim()) expect(md.split(t.trim()).length - 1, t).toBe(1);
    expect(md).toContain("a copy of segment 2");
  }, 120_000);

  it("sqlite/sqlite-reset: export --archived md and html show its 4 segments and 3 reset dividers", async () => {
    const s = store("sqlite", "sqlite-reset");
    const md = (await run(s, "main", "export", "agent:main:main", "--archived", "--format", "md")).stdout;
    expect(md).toContain("- **Segments:** 4");
    expect(md.match(/^> 🔁 \*\*Reset\*\*/gm)).toHaveLength(3);
    const html = (await run(s, "main", "export", "agent:main:main", "--archived", "--format", "html")).stdout;
    expect(html).toContain("<dt>Segments</dt><dd>4</dd>");
    expect(html.match(/class="divider"/g)).toHaveLength(3);
  }, 120_000);

  it("sqlite/sqlite-reset after restore --segment 1 --yes: the four still agree, the copy included", async () => {
    const s = store("sqlite", "sqlite-reset");
    expect((await run(s, "main", "restore", "--key", "agent:main:main", "--segment", "1", "--yes")).code).toBe(0);
    expect(await storeDisagreements(s)).toEqual([]);
  }, 120_000);
});

describe("keySegments", () => {
  it("always includes this tool's restores: the copy is marked without any restore list passed", async () => {
    const s = store("files", "reset-chain");
    const key = "agent:main:telegram:direct:424242";
    expect((await run(s, "main", "restore", "--key", key, "--segment", "3", "--yes")).code).toBe(0);
    const { session } = storeContext({ env: s.env, cwd: "/" });
    const [index] = await session.indexes({ stateDir: s.stateDir });
    const record = index!.sessions.find((r) => r.sessionKey === key)!;
    const segs = await keySegments(record, index!, session, s.env);
    expect(segs.map((x) => x.number)).toEqual([1, 2, 3, 4, 5]);
    expect(segs.map((x) => x.endReason)).toEqual(["reset", "reset", "reset", "restore", null]);
    expect(segs[4]).toMatchObject({ current: true, messages: 0, firstMessageId: null, copy: { of: 3, messages: 2 } });
    expect(segs[4]!.restore).toMatchObject({ role: "copy", copyOf: 3 });
  });
});
