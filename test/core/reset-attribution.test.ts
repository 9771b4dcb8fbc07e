/**
 * What attribution decides for a key after a reset, from what it decided before
 * (src/core/reset-attribution.ts), held against `attribute` itself on the whole store after the
 * reset: random stores of OpenClaw's shapes (rollovers, gateway resets that drop the usage family,
 * bare `/new`s, orphan and deleted archives, `.bak` trims, compaction checkpoints, ids shared
 * between keys, headers missing, an orphan that names a new id already), then one more reset or
 * several at once, an entry sometimes losing ids it named or naming one more, maybe the first
 * message of keys a bare `/new` left without a transcript, and maybe keys added (some forks, some
 * named by a file or entry already, some started just after a reset archive's stamp); a reset
 * key's transcript header sometimes written again before its rename (another start). Whenever
 * resetsDecided answers, its answer is each such key's whole decision, and no other key's decision
 * nor the files no key owns changed.
 */
import { describe, expect, it } from "vitest";
import { attribute, candidatesOf, type KeyInput, unownedAfterFirstRound } from "../../src/core/attribution.js";
import type { TranscriptHeader } from "../../src/core/model.js";
import { activeHeaderOf, entryIdCount, type KeyDecided, type OwnedFile, resetsDecided } from "../../src/core/reset-attribution.js";
import { classifiedByName } from "../helpers/classified.js";

const DIR = "/state/agents/main/sessions";
type Entry = Record<string, unknown> & { sessionId: string };

/** A store as attribution sees it: each file's header by name (null: none readable), each key's entry. */
interface World {
  headers: Map<string, TranscriptHeader | null>;
  entries: Map<string, Entry>;
  keys: string[];
  clock: number;
}

function randomOf(seed: number) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return { next, pick: <T>(a: readonly T[]) => a[Math.floor(next() * a.length)]! };
}

let ids = 0;
const uuid = () => `aaaaaaaa-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;
const stamp = (ms: number) => new Date(ms).toISOString().replaceAll(":", "-");
const header = (id: string, at: number, parentSession?: string): TranscriptHeader => ({
  id,
  timestamp: new Date(at).toISOString(),
  version: 3,
  parentSession: parentSession ?? null,
  cwd: null,
});
const family = (e: Entry) => (Array.isArray(e.usageFamilySessionIds) ? (e.usageFamilySessionIds as string[]) : []);

/**
 * A reset of `key`'s: `rollover` as the auto-reply path writes it (X and Y added to the usage
 * family), else as a gateway reset does (the family dropped, Y's header at once); `successor`
 * false: a bare `/new`, no Y.jsonl yet.
 */
function reset(w: World, key: string, opts: { rollover: boolean; successor: boolean; gap: number; y?: string }): { x: string; y: string } {
  const e = w.entries.get(key)!;
  const x = e.sessionId;
  const y = opts.y ?? uuid();
  w.clock += 1000 + opts.gap;
  const was = w.headers.get(`${x}.jsonl`);
  if (was !== undefined) {
    w.headers.delete(`${x}.jsonl`);
    w.headers.set(`${x}.jsonl.reset.${stamp(w.clock)}`, was);
  }
  if (opts.successor) w.headers.set(`${y}.jsonl`, header(y, w.clock + (opts.gap % 2500)));
  const next: Entry = { ...e, sessionId: y };
  if (opts.rollover) next.usageFamilySessionIds = [...new Set([...family(e), x, y])];
  else delete next.usageFamilySessionIds;
  w.entries.set(key, next);
  return { x, y };
}

function worldOf(seed: number): { w: World; random: ReturnType<typeof randomOf> } {
  const random = randomOf(seed);
  const { next, pick } = random;
  const w: World = { headers: new Map(), entries: new Map(), keys: [], clock: Date.parse("2026-07-01T00:00:00.000Z") };
  w.keys = ["agent:main:main", "agent:main:a", "agent:main:b", "agent:main:c"].slice(0, 2 + Math.floor(next() * 3));
  for (const key of w.keys) {
    const id = uuid();
    w.clock += Math.floor(next() * 5000);
    const parent = next() < 0.15 && w.entries.size > 0 ? pick([...w.entries.values()]).sessionId : undefined;
    w.headers.set(`${id}.jsonl`, next() < 0.1 ? null : header(id, w.clock, parent));
    w.entries.set(key, { sessionId: id, ...(next() < 0.5 ? { usageFamilySessionIds: [id] } : {}) });
  }
  const steps = Math.floor(next() * 9);
  for (let i = 0; i < steps; i++) {
    const r = next();
    const key = pick(w.keys);
    const e = w.entries.get(key)!;
    w.clock += next() < 0.5 ? Math.floor(next() * 1500) : Math.floor(next() * 100_000);
    if (r < 0.45) reset(w, key, { rollover: next() < 0.6, successor: next() < 0.85, gap: next() < 0.6 ? 0 : Math.floor(next() * 4000) });
    else if (r < 0.55) {
      const id = uuid();
      w.headers.set(`${id}.jsonl.reset.${stamp(w.clock)}`, next() < 0.2 ? null : header(id, w.clock - 5000));
    } else if (r < 0.65) {
      const id = uuid();
      const parent = next() < 0.5 ? pick([...w.entries.values()]).sessionId : undefined;
      w.headers.set(`${id}.jsonl.deleted.${stamp(w.clock)}`, header(id, w.clock - 9000, parent));
    } else if (r < 0.75 && w.headers.has(`${e.sessionId}.jsonl`)) {
      w.headers.set(`${e.sessionId}.jsonl.bak.${stamp(w.clock)}`, w.headers.get(`${e.sessionId}.jsonl`)!);
    } else if (r < 0.85) {
      // A compaction's checkpoint: its file, and the entry naming the id it holds.
      const id = next() < 0.5 ? e.sessionId : uuid();
      w.headers.set(`${id}.checkpoint.${uuid()}.jsonl`, header(id, w.clock - 2000));
      const checkpoints = Array.isArray(e.compactionCheckpoints) ? e.compactionCheckpoints : [];
      w.entries.set(key, { ...e, compactionCheckpoints: [...checkpoints, { preCompaction: { sessionId: id } }] });
    } else {
      // An id shared: this key's family names another key's.
      const other = w.entries.get(pick(w.keys))!;
      if (other !== e) w.entries.set(key, { ...e, usageFamilySessionIds: [...family(e), other.sessionId] });
    }
  }
  return { w, random };
}

/** Attribution of the whole store, and what each key's decision is as a basis keeps it (keys-basis.ts). */
function attributed(w: World) {
  const names = [...w.headers.keys()].sort();
  const files = names.map((name) => classifiedByName(DIR, name));
  const keys: KeyInput[] = w.keys.map((sessionKey) => {
    const entry = w.entries.get(sessionKey)!;
    const active = `${entry.sessionId}.jsonl`;
    return {
      sessionKey,
      sessionId: entry.sessionId,
      entry,
      sessionFileBasename: null,
      activePaths: w.headers.has(active) ? [`${DIR}/${active}`] : [],
    };
  });
  const asked = new Map<string, TranscriptHeader | null>();
  const headerOf = (p: string) => {
    const h = w.headers.get(p.slice(DIR.length + 1)) ?? null;
    asked.set(p, h);
    return h;
  };
  const a = attribute(keys, files, headerOf);
  const unowned = unownedAfterFirstRound(candidatesOf(keys, files), a.byFile, headerOf);
  const decided = new Map<string, KeyDecided>();
  for (const k of keys) {
    const owned: OwnedFile[] = [];
    for (const [p, owners] of a.byFile) {
      const mine = owners.find((o) => o.key === k.sessionKey);
      if (mine)
        owned.push(
          asked.has(p) ? [p.slice(DIR.length + 1), mine.evidence, asked.get(p)?.id ?? null] : [p.slice(DIR.length + 1), mine.evidence],
        );
    }
    const active = k.activePaths[0];
    const activeHeader = activeHeaderOf(owned.length > 0, unowned.count, active === undefined ? undefined : () => headerOf(active));
    decided.set(k.sessionKey, {
      owned,
      lineage: a.lineage.get(k.sessionKey)!,
      entryIds: entryIdCount(k),
      ...(activeHeader !== undefined ? { activeHeader } : {}),
    });
  }
  const active = new Set(keys.flatMap((k) => k.activePaths));
  const unattributed = files.filter((f) => !active.has(f.path) && !a.byFile.has(f.path)).map((f) => f.name);
  return { names, files, keys, decided, unattributed, unowned };
}

describe("the attribution of keys after their resets, first messages and keys added, from their attribution before", () => {
  it("is, whenever it is given, what attributing the whole store again gives, and no other key's nor unowned file's changed", () => {
    let followed = 0;
    let together = 0;
    let firsts = 0;
    let rollovers = 0;
    let elsewhere = 0;
    let adds = 0;
    let addsBesideUnowned = 0;
    let firstResetsBesideUnowned = 0;
    for (let seed = 1; seed <= 3500; seed++) {
      ids = 0;
      const { w, random } = worldOf(seed);
      // One key reset, or up to three at once (a morning's daily rollovers), each with a transcript to rename.
      const count = random.next() < 0.6 ? 1 : 2 + Math.floor(random.next() * 2);
      // And keys added (a new chat's first message): one or two, sometimes with no reset beside them.
      const adding = random.next() < 0.35 ? 1 + Math.floor(random.next() * 2) : 0;
      const resetKeys = [...new Set(Array.from({ length: count }, () => random.pick(w.keys)))].filter(
        (k) => w.headers.has(`${w.entries.get(k)!.sessionId}.jsonl`) && (adding === 0 || random.next() < 0.5),
      );
      if (resetKeys.length === 0 && adding === 0) continue;
      // A key added: its id, its transcript's start, and what was there before it that may name it
      // (an orphan's header, as its parent; an archive of its id), or that it may follow (a reset
      // archive no key owns, stamped up to 3 s before its start).
      const newKeys = Array.from({ length: adding }, (_, n) => {
        const id = uuid();
        const at = w.clock + 700 + Math.floor(random.next() * 3000);
        const r = random.next();
        const orphan = uuid();
        if (r < 0.3) w.headers.set(`${orphan}.jsonl.reset.${stamp(at - Math.floor(random.next() * 3000))}`, header(orphan, at - 60_000));
        else if (r < 0.4) w.headers.set(`${orphan}.jsonl.deleted.${stamp(w.clock)}`, header(orphan, w.clock - 1000, id));
        else if (r > 0.6 && r < 0.65)
          w.headers.set(`${id}.jsonl.deleted.${stamp(w.clock)}`, header(id, w.clock - 1000)); // its id's older copy
        else if (r > 0.65 && r < 0.7) w.headers.set(`${orphan}.jsonl.deleted.${stamp(w.clock)}`, header(orphan, w.clock - 1000)); // its parent below
        return { key: `agent:main:added-${n}`, id, at, r, orphan };
      });
      // Sometimes a file no key owns names a new sessionId already: as its parent, or as its own (a copy).
      const nextIds = resetKeys.map(() => uuid());
      const naming = random.next();
      if (naming < 0.1) {
        const id = uuid();
        const named = random.pick(nextIds);
        w.headers.set(`${id}.jsonl.deleted.${stamp(w.clock)}`, naming < 0.05 ? header(id, w.clock, named) : header(named, w.clock));
      }
      const before = attributed(w);
      const gone = resetKeys.map((k) => `${w.entries.get(k)!.sessionId}.jsonl`);
      const rollover = random.next() < 0.85;
      for (const [n, key] of resetKeys.entries()) {
        const { x, y } = reset(w, key, { rollover, successor: random.next() < 0.7, gap: 0, y: nextIds[n]! });
        // Sometimes the entry loses an id it named (its checkpoints, all of its family but X and Y) or names one more (another key's).
        const edit = random.next();
        const e = w.entries.get(key)!;
        if (edit < 0.1) delete e.compactionCheckpoints;
        else if (edit < 0.2 && rollover) e.usageFamilySessionIds = [x, y];
        else if (edit < 0.3) e.usageFamilySessionIds = [...family(e), w.entries.get(random.pick(w.keys))!.sessionId];
        // Sometimes its transcript's header was written again before the rename: another start, maybe
        // just after a reset archive's stamp (the later rounds may then link that archive to it).
        if (random.next() < 0.15) {
          const archive = [...w.headers.keys()].find((name) => name.startsWith(`${x}.jsonl.reset.`))!;
          const stamps = [...w.headers.keys()]
            .filter((n) => n.includes(".reset."))
            .map((n) => Date.parse(n.slice(n.indexOf(".reset.") + 7).replace(/T(\d\d)-(\d\d)-/, "T$1:$2:")));
          w.headers.set(archive, header(x, random.next() < 0.5 ? random.pick(stamps) + 500 : w.clock - 7000));
        }
      }
      // And keys whose transcript was missing (a bare /new's) get their first message: the transcript made.
      const started = w.keys.filter(
        (k) => !resetKeys.includes(k) && !w.headers.has(`${w.entries.get(k)!.sessionId}.jsonl`) && random.next() < 0.5,
      );
      for (const key of started) {
        const e = w.entries.get(key)!;
        w.headers.set(`${e.sessionId}.jsonl`, header(e.sessionId, w.clock + 500));
        // Sometimes its entry names one id more with it (another key's).
        if (random.next() < 0.2) e.usageFamilySessionIds = [...family(e), w.entries.get(random.pick(w.keys))!.sessionId];
      }
      for (const { key, id, at, r, orphan } of newKeys) {
        // Sometimes a fork's (its header names a parent: a key's, or a file's no key owns), or its entry names another id, or another entry names its id.
        const parent = r > 0.4 && r < 0.5 ? random.pick([...w.entries.values()]).sessionId : r > 0.65 && r < 0.7 ? orphan : undefined;
        w.headers.set(`${id}.jsonl`, random.next() < 0.1 ? null : header(id, at, parent));
        const entry: Entry = { sessionId: id, ...(random.next() < 0.5 ? { usageFamilySessionIds: [id] } : {}) };
        if (r > 0.5 && r < 0.55) entry.previousSessionId = w.entries.get(random.pick(w.keys))!.sessionId;
        if (r > 0.55 && r < 0.6) {
          const other = random.pick(w.keys);
          w.entries.set(other, { ...w.entries.get(other)!, usageFamilySessionIds: [...family(w.entries.get(other)!), id] });
        }
        w.entries.set(key, entry);
        w.keys.splice(Math.floor(random.next() * (w.keys.length + 1)), 0, key);
      }
      const added = newKeys.map((k) => k.key);
      const after = attributed(w);
      const changing = [...resetKeys, ...started, ...added];
      const decided = resetsDecided(
        {
          dir: DIR,
          made: after.names.filter((name) => !before.names.includes(name)),
          names: after.names,
          unowned: before.unowned,
          fileOf: (name) => after.files.find((f) => f.name === name),
          headerOf: (name) => w.headers.get(name),
        },
        changing.map((key, n) => {
          const others = w.keys.filter((k) => k !== key).map((k) => JSON.stringify(w.entries.get(k)));
          return {
            input: after.keys.find((k) => k.sessionKey === key)!,
            before: before.decided.get(key) ?? null,
            gone: gone[n] ?? null,
            namedElsewhere: (id: string) => others.some((t) => t.includes(id)),
          };
        }),
      );
      const changedElsewhere =
        w.keys.some((k) => !changing.includes(k) && JSON.stringify(before.decided.get(k)) !== JSON.stringify(after.decided.get(k))) ||
        JSON.stringify(before.unattributed) !== JSON.stringify(after.unattributed);
      if (changedElsewhere) elsewhere += 1;
      if (rollover) rollovers += 1;
      if (decided === null) continue;
      followed += 1;
      if (resetKeys.length > 1) together += 1;
      if (started.length > 0) firsts += 1;
      if (added.length > 0) adds += 1;
      if (added.length > 0 && before.unowned.count > 0) addsBesideUnowned += 1;
      if (resetKeys.some((k) => before.decided.get(k)!.owned.length === 0) && before.unowned.count > 0) firstResetsBesideUnowned += 1;
      const why = `seed ${seed}: ${resetKeys.join(", ")} reset, ${started.join(", ")} started, ${added.join(", ")} added`;
      expect(changedElsewhere, why).toBe(false);
      // A basis' line is its JSON: the same text a whole derivation writes.
      expect(JSON.stringify(decided), why).toBe(JSON.stringify(changing.map((k) => after.decided.get(k))));
    }
    // Most rollovers are followed, several at once too, and keys added; the changes that reach other keys are there, and none was followed.
    expect(rollovers).toBeGreaterThan(1000);
    expect(followed).toBeGreaterThan(rollovers / 4);
    expect(together).toBeGreaterThan(100);
    expect(firsts).toBeGreaterThan(20);
    expect(adds).toBeGreaterThan(180);
    expect(addsBesideUnowned).toBeGreaterThan(100);
    expect(firstResetsBesideUnowned).toBeGreaterThan(50);
    expect(elsewhere).toBeGreaterThan(50);
  });
});
