/**
 * `compactions [key]` (issue 30) on the corpus and the OpenClaw-written stores of
 * fixtures/compactions/: what a compaction shows, the numbering, `--show`, the usage errors, every
 * key streamed as one document, the JSON schema, facts read from the index while the transcript is
 * unchanged, and what `check`, `timeline` and `context-pack --compaction` make of the same list.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { runCompactions } from "../../src/commands/compactions.js";
import { runContextPack } from "../../src/commands/context-pack.js";
import { answersDirOf, indexFileFor } from "../../src/store/cache/location.js";
import { cli } from "../helpers/cli.js";
import { copyState, ROOT, scenarioDir } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { appendToActive, compactionAfter } from "../helpers/openclaw-writer.js";
import { countedRun, storeContext } from "../helpers/store-context.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });
const schemaOf = (name: string) => ajv.compile(JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema", `${name}.schema.json`), "utf8")));
const validCompactions = schemaOf("compactions");

const SINGLE = path.join(scenarioDir("files", "single-active"), "state");
const BAK = path.join(scenarioDir("files", "manual-compact-bak"), "state");

/** A copy of a fixtures/compactions store (OpenClaw-written, with flagged compactions). */
function flagged(era: "files" | "sqlite"): string {
  const name = era === "files" ? "flagged-71" : "flagged-96";
  const root = tempDir(`ocs-cmp-${name}-`);
  const stateDir = path.join(root, "state");
  fs.cpSync(path.join(ROOT, "fixtures/compactions", era, name, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
  return stateDir;
}

describe("compactions <key>", () => {
  it("single-active: one compaction, what it lost (the active path only), no flag", async () => {
    const r = await cli(["compactions", "agent:main:main", "--json", "--state-dir", SINGLE]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(validCompactions(doc), JSON.stringify(validCompactions.errors)).toBe(true);
    const [key] = doc.keys;
    expect(key).toMatchObject({ sessionKey: "agent:main:main", compactionCount: 1, segments: 1, flagged: 0, offPath: 0 });
    const [c] = key.compactions;
    expect(c).toMatchObject({
      number: 1,
      kind: "compaction",
      segment: 1,
      lineNo: 15,
      entryId: "0477dbde",
      tokensBefore: 48231,
      tokensAfter: { value: 1200, source: "next-turn" },
      trigger: { kind: "unknown" },
      kept: { entryId: "66d62eb3-cee3-47f8-a478-749e5d5c3628", lineNo: 14 },
      keptMessages: 1,
      regained: 0,
      flags: [],
    });
    // The abandoned branch (lines 6–9) was never in the model's context: not in the span.
    expect(c.lost).toMatchObject({ messages: 8, users: 2, byRole: { user: 2, assistant: 4, toolResult: 2 }, previousSummary: null });
    expect([c.lost.first.lineNo, c.lost.last.lineNo]).toEqual([2, 13]);
    expect(c.show).toBe(`openclaw-sessions compactions agent:main:main --show 1 --state-dir ${SINGLE}`);
  });

  it("--show n prints the span itself, item by item; text names the lines", async () => {
    const r = await cli(["compactions", "agent:main:main", "--show", "1", "--json", "--state-dir", SINGLE]);
    const span = r.json().keys[0].compactions[0].span;
    expect(span.map((i: { lineNo: number }) => i.lineNo)).toEqual([2, 3, 4, 5, 10, 11, 12, 13]);
    expect(span[0]).toMatchObject({ kind: "message", role: "user", text: "What is in this repo?" });
    const text = await cli(["compactions", "agent:main:main", "--show", "1", "--state-dir", SINGLE, "--tz", "UTC"]);
    expect(text.stdout).toContain("the span it lost (8 items):");
    expect(text.stdout).toContain("L10  2026-07-01 09:00:10  user: Actually, just list the src folder.");
  });

  it("a SQLite window: tokensAfter from the row, read from a copy of the database", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-basic");
    const doc = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir])).json();
    const [c] = doc.keys[0].compactions;
    expect(c).toMatchObject({ number: 1, source: "window", tokensBefore: 48210, tokensAfter: { value: 3120, source: "entry" }, flags: [] });
    expect(c.lost.messages).toBeGreaterThan(0);
  });

  it("gateway trims: numbered in order, TRIM_ONLY_IN_BAK naming the .bak that alone holds what they removed", async () => {
    const doc = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", BAK])).json();
    const trims = doc.keys[0].compactions;
    expect(trims.map((c: { kind: string; number: number }) => [c.kind, c.number])).toEqual([
      ["trim", 1],
      ["trim", 2],
    ]);
    for (const t of trims) {
      expect(t.removedMessages).toBeGreaterThan(0);
      expect(t.flags).toEqual([expect.objectContaining({ code: "TRIM_ONLY_IN_BAK", bak: t.path })]);
      expect(t.path).toMatch(/\.jsonl\.bak\./);
    }
    expect(trims[0].time).toBeLessThan(trims[1].time);
  });

  it("usage errors: --show past the last, --show without a key, an unknown key (exit 2, stable codes)", async () => {
    const past = await cli(["compactions", "agent:main:main", "--show", "4", "--json", "--state-dir", SINGLE]);
    expect(past.code).toBe(2);
    expect(past.json().error).toMatchObject({ code: "COMPACTION_OUT_OF_RANGE", compactions: 1, requested: 4 });
    const noKey = await cli(["compactions", "--show", "1", "--json", "--state-dir", SINGLE]);
    expect(noKey.code).toBe(2);
    expect(noKey.json().error.code).toBe("MISSING_ARGUMENT");
    const unknown = await cli(["compactions", "agent:main:nope", "--json", "--state-dir", SINGLE]);
    expect(unknown.code).toBe(2);
    expect(unknown.json().error.code).toBe("SESSION_NOT_FOUND");
  });
});

describe("compactions <key>, kept as an answer about one key (issue 28)", () => {
  it("is handed back without indexing the store while nothing it read changed (with --show too); a new compaction is listed at once", async () => {
    const { stateDir, home, root } = copyState("files", "single-active");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const key = "agent:main:main";
    const compactions = (show?: number, index = true) =>
      countedRun(place, async (c) =>
        JSON.stringify(
          await runCompactions({ stateDir, key, ...(show === undefined ? {} : { show }), ...(index ? {} : { index: false }) }, c),
        ),
      );
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    for (const show of [undefined, 1]) {
      const plain = (await compactions(show, false)).value;
      expect(await compactions(show)).toEqual({ value: plain, indexed: 1 });
      expect(await compactions(show)).toEqual({ value: plain, indexed: 0 });
    }

    appendToActive(stateDir, key, (last) => compactionAfter(last, "later turns"));
    const after = await compactions();
    expect(after.indexed).toBe(1);
    expect(JSON.parse(after.value).keys[0].compactions).toHaveLength(2);
    expect(after.value).toBe((await compactions(undefined, false)).value);
  });
});

describe("context-pack --compaction, from the answer `compactions <key> --show n` keeps (issue 28)", () => {
  it("packs the span without indexing the store while nothing it read changed, as --no-index packs it", async () => {
    const { stateDir, home, root } = copyState("files", "single-active");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const pack = (index = true) =>
      countedRun(place, async (c) =>
        JSON.stringify(
          await runContextPack({ stateDir, key: "agent:main:main", compaction: 1, now: 0, ...(index ? {} : { index: false }) }, c),
        ),
      );
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    const plain = (await pack(false)).value;
    expect(JSON.parse(plain).compaction.number).toBe(1);
    // The key's compactions with the span, and the plan of `history <key> --archived`: both kept.
    expect(await pack()).toEqual({ value: plain, indexed: 2 });
    expect(await pack()).toEqual({ value: plain, indexed: 0 });
    await expect(countedRun(place, (c) => runContextPack({ stateDir, key: "agent:main:main", compaction: 9 }, c))).rejects.toMatchObject({
      code: "COMPACTION_OUT_OF_RANGE",
    });
    await expect(countedRun(place, (c) => runContextPack({ stateDir, key: "agent:main:nope", compaction: 1 }, c))).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
      hint: "run `openclaw-sessions compactions` to list the keys",
    });
  });
});

describe("compactions of every key, kept as a store-wide answer (issue 28)", () => {
  it("is handed back without indexing the store while nothing it read changed; a new compaction is listed at once, the kept list brought up to date", async () => {
    const { stateDir, home, root } = copyState("files", "single-active");
    const place = { env: { HOME: home, XDG_CACHE_HOME: path.join(root, "cache") }, cwd: "/" };
    const every = (index = true) =>
      countedRun(place, async (c) => JSON.stringify(await runCompactions({ stateDir, ...(index ? {} : { index: false }) }, c)));
    await pastRacyWindow(); // the copy is old enough for what a run derives to be kept

    const plain = (await every(false)).value;
    expect(await every()).toEqual({ value: plain, indexed: 1 });
    expect(await every()).toEqual({ value: plain, indexed: 0 });
    expect(JSON.parse(plain).summary.compactions).toBe(1);

    appendToActive(stateDir, "agent:main:main", (last) => compactionAfter(last, "later turns"));
    // A turn of OpenClaw's: the key's list again, the store not indexed again (keys-again.ts).
    const after = await every();
    expect(after.indexed).toBe(0);
    expect(JSON.parse(after.value).summary.compactions).toBe(2);
    expect(after.value).toBe((await every(false)).value);
  });
});

describe("compactions (every key)", () => {
  it("one document, written key by key: every key, its compactions numbered from 1, the totals", async () => {
    const stateDir = flagged("files");
    const r = await cli(["compactions", "--json", "--state-dir", stateDir]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(validCompactions(doc), JSON.stringify(validCompactions.errors)).toBe(true);
    expect(doc.keys.length).toBe(2);
    for (const k of doc.keys)
      expect(k.compactions.map((c: { number: number }) => c.number)).toEqual(k.compactions.map((_: unknown, i: number) => i + 1));
    const all = doc.keys.flatMap((k: { compactions: unknown[] }) => k.compactions);
    expect(doc.summary).toMatchObject({ keys: 2, keysWithCompactions: 2, compactions: all.length });
    expect(doc.summary.byFlag.SUMMARY_EMPTY).toBeGreaterThan(0);
    // The same through the command's function (the CLI only streams it).
    const direct = await runCompactions({ stateDir }, storeContext({ env: { HOME: homeNotMade() }, cwd: ROOT }));
    expect(direct.summary).toEqual(doc.summary);
    const text = await cli(["compactions", "--state-dir", stateDir, "--tz", "UTC"]);
    expect(text.stdout).toMatch(/^2 keys, 2 with compactions: \d+ compactions, \d+ flagged \(SUMMARY_EMPTY ×\d+/m);
    expect(text.stdout).toContain("⚠ SUMMARY_FALLBACK");
  });

  it("a key without compactions is listed in JSON, left out of the text", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-basic");
    const doc = (await cli(["compactions", "--all-agents", "--json", "--state-dir", stateDir])).json();
    expect(validCompactions(doc)).toBe(true);
    expect(doc.keys.map((k: { sessionKey: string }) => k.sessionKey).sort()).toEqual([
      "agent:main:main",
      "agent:main:telegram:direct:5550001",
      "agent:work:main",
    ]);
    const text = (await cli(["compactions", "--all-agents", "--state-dir", stateDir])).stdout;
    expect(text).toContain("agent:main:main  1 compaction");
    expect(text).not.toContain("agent:work:main");
  });

  it("reads each transcript's facts from the index while it is unchanged, and again once it changed", async () => {
    const stateDir = flagged("files");
    const cache = tempDir("ocs-cmp-cache-");
    const env = { XDG_CACHE_HOME: cache };
    // Facts of files written less than 2 s ago are not kept (read-set.ts RACY_MS).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const first = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir], { env })).json();
    const db = new DatabaseSync(indexFileFor(stateDir, env));
    const rows = db.prepare("SELECT source, value FROM facts WHERE what = 'compactions/1'").all() as Array<{
      source: string;
      value: string;
    }>;
    expect(rows.length).toBeGreaterThan(0);
    // Mark a kept fact: a run that shows the mark read it from the index.
    const row = rows.find((x) => JSON.parse(x.value).compactions.length > 0)!;
    const v = JSON.parse(row.value);
    v.compactions[0].summary = "FROM THE INDEX";
    db.prepare("UPDATE facts SET value = ? WHERE what = 'compactions/1' AND source = ?").run(JSON.stringify(v), row.source);
    db.close();
    // Without the whole answer the first run kept (an answer about one key), the next derives it, from the facts.
    fs.rmSync(answersDirOf(indexFileFor(stateDir, env)), { recursive: true, force: true });
    const second = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir], { env })).json();
    const summaries = (d: { keys: Array<{ compactions: Array<{ summary: string | null }> }> }) =>
      d.keys[0]!.compactions.map((c) => c.summary);
    expect(summaries(second)).toContain("FROM THE INDEX");
    expect(summaries(first)).not.toContain("FROM THE INDEX");
    // The transcript changes (a line appended): its facts are read from it again.
    const file = row.source.replace(/^file:none:/, "");
    fs.appendFileSync(file, "\n");
    const third = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir], { env })).json();
    expect(summaries(third)).not.toContain("FROM THE INDEX");
  });
});

describe("what check, timeline and context-pack make of the list", () => {
  it("check: empty and fallback summaries are warnings whose hint is the command that shows the span", async () => {
    const stateDir = flagged("files");
    const r = await cli(["check", "--json", "--state-dir", stateDir]);
    const found = r.json().findings.filter((f: { code: string }) => f.code === "COMPACTION_SUMMARY_EMPTY");
    expect(found.length).toBeGreaterThan(3);
    expect(new Set(found.map((f: { severity: string }) => f.severity))).toEqual(new Set(["warn"]));
    const numbered = found.filter((f: { data?: { compaction?: number } }) => f.data?.compaction !== undefined);
    expect(numbered.length).toBeGreaterThan(3);
    for (const f of numbered) {
      expect(f.hint).toContain(`openclaw-sessions compactions ${f.sessionKey} --show ${f.data.compaction} --state-dir ${stateDir}`);
      expect(["SUMMARY_EMPTY", "SUMMARY_FALLBACK"]).toContain(f.data.flag);
    }
    // The same compactions, the same numbers, in the list.
    const list = (await cli(["compactions", "--json", "--state-dir", stateDir])).json();
    for (const f of numbered) {
      const c = list.keys.find((k: { sessionKey: string }) => k.sessionKey === f.sessionKey).compactions[f.data.compaction - 1];
      expect(c.flags.map((x: { code: string }) => x.code)).toContain(f.data.flag);
    }
    // One compaction, one finding: a row trims copied into `.bak` files is reported where the list shows it, its copies named.
    const perCompaction = new Map<string, number>();
    for (const f of numbered)
      perCompaction.set(`${f.sessionKey} ${f.data.compaction}`, (perCompaction.get(`${f.sessionKey} ${f.data.compaction}`) ?? 0) + 1);
    expect([...perCompaction.values()].every((n) => n === 1)).toBe(true);
    const copied = numbered.filter((f: { data: { copies?: unknown[] } }) => (f.data.copies ?? []).length > 0);
    expect(copied.length).toBeGreaterThan(0);
    for (const f of copied) {
      const c = list.keys.find((k: { sessionKey: string }) => k.sessionKey === f.sessionKey).compactions[f.data.compaction - 1];
      expect({ path: f.path, line: f.line }).toEqual({ path: c.path, line: c.lineNo });
      expect(f.data.copies).toEqual(c.copies.map((x: { path: string; lineNo: number }) => ({ path: x.path, line: x.lineNo })));
    }
    // A normal summary is not a finding.
    const clean = await cli(["check", "--json", "--state-dir", SINGLE]);
    expect(clean.json().findings.filter((f: { code: string }) => f.code === "COMPACTION_SUMMARY_EMPTY")).toEqual([]);
  });

  it("timeline <key>: compaction events carry their number and flags; the text marks flagged ones", async () => {
    const stateDir = flagged("sqlite");
    const list = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir])).json().keys[0].compactions;
    const t = await cli(["timeline", "agent:main:main", "--json", "--state-dir", stateDir]);
    const events = t.json().events.filter((e: { type: string }) => e.type === "compaction");
    expect(events.length).toBe(list.length);
    for (const e of events) {
      const c = list[e.compaction - 1];
      expect(c.entryId).toBe(e.entryId);
      expect(e.flags).toEqual(c.flags.map((f: { code: string }) => f.code));
    }
    const text = await cli(["timeline", "agent:main:main", "--state-dir", stateDir]);
    const flaggedOne = list.find((c: { flags: unknown[] }) => c.flags.length > 0);
    expect(text.stdout).toContain(`◇ compaction #${flaggedOne.number}`);
    expect(text.stdout).toContain(`⚠ ${flaggedOne.flags.map((f: { code: string }) => f.code).join(", ")}: ${flaggedOne.show}`);
  });

  it("context-pack --compaction n packs the span, with provenance, under the cap", async () => {
    const stateDir = flagged("files");
    const list = (await cli(["compactions", "agent:main:main", "--json", "--state-dir", stateDir])).json().keys[0].compactions;
    const c = list.find((x: { kind: string; lost: { messages: number } }) => x.kind === "compaction" && x.lost.messages >= 3);
    const shown = (await cli(["compactions", "agent:main:main", "--show", String(c.number), "--json", "--state-dir", stateDir])).json();
    const span = shown.keys[0].compactions[c.number - 1].span;
    const r = await cli(["context-pack", "agent:main:main", "--compaction", String(c.number), "--json", "--state-dir", stateDir]);
    expect(r.code).toBe(0);
    const pack = r.json();
    expect(schemaOf("context-pack")(pack)).toBe(true);
    expect(pack.selection).toMatchObject({ segments: null, compaction: c.number });
    expect(pack.compaction).toMatchObject({
      number: c.number,
      flags: c.flags.map((f: { code: string }) => f.code),
      spanItems: span.length,
    });
    expect(pack.turns.map((t: { provenance: { entryId: string } }) => t.provenance.entryId)).toEqual(
      span.map((i: { entryId: string }) => i.entryId),
    );
    for (const t of pack.turns) expect(t.provenance.path).toMatch(/\.jsonl/);
    // The cap keeps the newest and says what it cut.
    const capped = (
      await cli([
        "context-pack",
        "agent:main:main",
        "--compaction",
        String(c.number),
        "--max-chars",
        "200",
        "--json",
        "--state-dir",
        stateDir,
      ])
    ).json();
    expect(capped.turns.length).toBeLessThan(span.length);
    expect(capped.cut.turns).toBe(span.length - capped.turns.length);
    expect(capped.turns.at(-1).provenance.entryId).toBe(span.at(-1).entryId);
    const md = await cli(["context-pack", "agent:main:main", "--compaction", String(c.number), "--state-dir", stateDir]);
    expect(md.stdout).toContain(`- Selection: what compaction ${c.number} took from the model`);
    const both = await cli(["context-pack", "agent:main:main", "--compaction", "1", "--segments", "2", "--json", "--state-dir", stateDir]);
    expect(both.code).toBe(2);
    expect(both.json().error.code).toBe("CONFLICTING_OPTIONS");
  });
});
