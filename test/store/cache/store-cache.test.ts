/**
 * StoreCache's one rule (issue 28): a fact is reused only while the transcript's identity equals
 * the one it was derived from (a file: dev, inode, size, mtime and ctime in ns; a SQLite window or
 * archive row: its proof in the run's snapshot), and kept only when the read was whole and the file
 * is older than the racy window. Real files and real databases in temp dirs; each cache writes its
 * index under a private XDG_CACHE_HOME.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TranscriptRef } from "../../../src/core/model.js";
import { StoreCache, sourceOf, statIdentity } from "../../../src/store/cache/store-cache.js";
import { fileRef } from "../../../src/store/files/index.js";
import { noteUnreadable, UnreadableLog } from "../../../src/store/safe-read.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState } from "../../helpers/corpus.js";
import { factsIn, indexFileOf } from "../../helpers/index-cache.js";
import { openSqliteForWriting, run } from "../../helpers/sqlite-writer.js";
import { tempDir } from "../../helpers/temp.js";

const LINE = `${JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-07-01T09:00:00.000Z", cwd: "/tmp" })}\n`;
/** A run's clock this far ahead: every file written so far is older than the racy window (2 s). */
const LATER = 2100;

const identity = (p: string) => statIdentity(fs.statSync(p, { bigint: true }));

/** A store dir with one transcript, and a cache factory whose runs share one index. */
function setup() {
  const root = tempDir("ocs-cache-unit-");
  const file = path.join(root, "a.jsonl");
  fs.writeFileSync(file, LINE);
  const cacheHome = tempDir("ocs-cache-home-");
  const warnings: string[] = [];
  const open = (now: () => number = () => Date.now() + LATER) => {
    const cache = new StoreCache({ env: { XDG_CACHE_HOME: cacheHome }, sqliteProof: () => null, warn: (w) => warnings.push(w), now });
    cache.addRoot(root, []);
    return cache;
  };
  return { root, file, cacheHome, warnings, open, index: () => indexFileOf(root, cacheHome) };
}

/** One run (a cache `open` makes) doing `body`; closed (its facts written) before it returns. */
async function inOneRun(open: () => StoreCache, body: (cache: StoreCache) => Promise<void>): Promise<void> {
  const cache = open();
  try {
    await body(cache);
  } finally {
    cache.close();
  }
}

/** One run's `remember` of a counted derivation; closed (its facts written) before it returns. */
async function remembered(cache: StoreCache, ref: TranscriptRef, compute: () => number = () => 1, keep?: (v: number) => boolean) {
  let computed = 0;
  try {
    const value = await cache.remember(
      ref,
      "count/1",
      async () => {
        computed += 1;
        return compute();
      },
      keep,
    );
    return { value, computed };
  } finally {
    cache.close();
  }
}

describe("a file's identity", () => {
  it("changes on an append, a same-size rewrite with the old mtime put back, a rename over it, a touch and a chmod", () => {
    const { file, root } = setup();
    const seen = new Set([identity(file)]);
    const changed = (what: string) => {
      const now = identity(file);
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
    };
    fs.appendFileSync(file, LINE);
    changed("append");
    const st = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"s1"', '"s2"'));
    fs.utimesSync(file, st.atime, st.mtime);
    expect(fs.statSync(file).size).toBe(st.size);
    changed("same-size rewrite, old mtime");
    const other = path.join(root, "b.tmp");
    fs.writeFileSync(other, fs.readFileSync(file));
    fs.renameSync(other, file);
    changed("rename over it");
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    changed("touch");
    fs.chmodSync(file, 0o600);
    changed("chmod (ctime only)");
  });

  it("a transcript read with parts of others left out has no source: it is never cached", () => {
    const ref = fileRef("/x/a.jsonl");
    expect(sourceOf(ref)).toBe("file:none:/x/a.jsonl");
    expect(sourceOf({ ...ref, omitIdsOf: [fileRef("/x/b.jsonl")] })).toBeNull();
    expect(sourceOf({ kind: "sqlite", dbPath: "/d.sqlite", sessionId: "w", label: "w", omitIdsOf: [ref] })).toBeNull();
    expect(sourceOf(fileRef("/x/a.jsonl.deleted.2026-01-01T00-00-00.000Z.zst"))).toMatch(/^file:zstd:/);
  });
});

describe("remember", () => {
  it("reuses a fact while the file is unchanged, and derives it again after any change", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    expect(await remembered(s.open(), ref, () => 7)).toEqual({ value: 7, computed: 1 });
    expect(await remembered(s.open(), ref, () => 8)).toEqual({ value: 7, computed: 0 });
    fs.appendFileSync(s.file, LINE);
    expect(await remembered(s.open(), ref, () => 9)).toEqual({ value: 9, computed: 1 });
    expect(await remembered(s.open(), ref, () => 10)).toEqual({ value: 9, computed: 0 });
    expect(factsIn(s.index()).map((r) => [r.source, r.identity])).toEqual([[`file:none:${s.file}`, identity(s.file)]]);
    fs.rmSync(s.file);
    expect(await remembered(s.open(), ref, () => 11)).toEqual({ value: 11, computed: 1 });
  });

  it("the racy rule: facts of a file changed less than 2 s before the run are not kept; once it is 2 s old they are", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    // The run's clock is now: the file was just written.
    expect(
      await remembered(
        s.open(() => Date.now()),
        ref,
        () => 1,
      ),
    ).toEqual({ value: 1, computed: 1 });
    expect(factsIn(s.index())).toEqual([]);
    expect(
      await remembered(
        s.open(() => Date.now()),
        ref,
        () => 2,
      ),
    ).toEqual({ value: 2, computed: 1 });
    // The run's clock 2.1 s on: the same file is old enough.
    expect(
      await remembered(
        s.open(() => Date.now() + LATER),
        ref,
        () => 3,
      ),
    ).toEqual({ value: 3, computed: 1 });
    expect(
      await remembered(
        s.open(() => Date.now()),
        ref,
        () => 4,
      ),
    ).toEqual({ value: 3, computed: 0 });
  });

  it("a rewrite that puts an old mtime back is still racy: its ctime is new", async () => {
    const s = setup();
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(s.file, hourAgo, hourAgo);
    expect(
      await remembered(
        s.open(() => Date.now()),
        fileRef(s.file),
      ),
    ).toEqual({ value: 1, computed: 1 });
    expect(factsIn(s.index())).toEqual([]);
  });

  it("a file that changes while it is read: what was read is not kept", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    const first = await remembered(s.open(), ref, () => {
      fs.appendFileSync(s.file, LINE);
      return 1;
    });
    expect(first).toEqual({ value: 1, computed: 1 });
    expect(factsIn(s.index())).toEqual([]);
    expect(await remembered(s.open(), ref, () => 2)).toEqual({ value: 2, computed: 1 });
  });

  it("a file that changes after it was read, before the run ends: nothing read from it is kept (its facts are checked when written)", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    await inOneRun(s.open, async (cache) => {
      expect(await cache.remember(ref, "count/1", async () => 1)).toBe(1);
      expect(await cache.remember(ref, "other/1", async () => 2)).toBe(2);
      fs.appendFileSync(s.file, LINE);
    });
    expect(factsIn(s.index())).toEqual([]);
    expect(await remembered(s.open(), ref, () => 3)).toEqual({ value: 3, computed: 1 });
  });

  it("a run stats a transcript once: a change later in the run is not seen by a fact kept before it, a fact derived after it is not kept, and the run sees it once it locates its stores again", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    expect(await remembered(s.open(), ref, () => 1)).toEqual({ value: 1, computed: 1 });
    await inOneRun(s.open, async (cache) => {
      expect(await cache.remember(ref, "count/1", async () => 2)).toBe(1);
      fs.appendFileSync(s.file, LINE);
      expect(await cache.remember(ref, "count/1", async () => 3)).toBe(1); // one snapshot: as the run first saw it
      expect(await cache.remember(ref, "other/1", async () => 4)).toBe(4); // read after the change: not kept under the old identity
      cache.forgetIdentities();
      expect(await cache.remember(ref, "count/1", async () => 5)).toBe(5);
    });
    expect(factsIn(s.index()).map((r) => [r.what, r.identity, r.value])).toEqual([["count/1", identity(s.file), "5"]]);
  });

  it("an index's first run looks nothing up in it (it holds only what the run wrote): a fact asked again is derived again, and the next run reads the last back", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    await inOneRun(s.open, async (cache) => {
      expect(await cache.remember(ref, "count/1", async () => 1)).toBe(1);
      expect(await cache.remember(ref, "count/1", async () => 2)).toBe(2);
    });
    expect(await remembered(s.open(), ref, () => 3)).toEqual({ value: 2, computed: 0 });
  });

  it("a file read with parts of others left out, in a run that looked the file up whole: derived, never the whole file's fact, nothing kept for it", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    expect(await remembered(s.open(), ref, () => 1)).toEqual({ value: 1, computed: 1 });
    await inOneRun(s.open, async (cache) => {
      expect(await cache.remember(ref, "count/1", async () => 2)).toBe(1);
      const part: TranscriptRef = { ...ref, omitIdsOf: [fileRef(path.join(s.root, "b.jsonl"))] };
      expect(await cache.remember(part, "count/1", async () => 3)).toBe(3);
    });
    expect(factsIn(s.index()).map((r) => [r.what, r.value])).toEqual([["count/1", "1"]]);
  });

  it("a root located later in the run that holds a file's dir: the file's facts go to that root's index from then on", async () => {
    const s = setup();
    const inner = path.join(s.root, "agents", "main");
    fs.mkdirSync(inner, { recursive: true });
    const file = path.join(inner, "b.jsonl");
    fs.writeFileSync(file, LINE);
    const ref = fileRef(file);
    await inOneRun(s.open, async (cache) => {
      expect(await cache.remember(ref, "count/1", async () => 1)).toBe(1);
      cache.addRoot(inner, []);
      expect(await cache.remember(ref, "other/1", async () => 2)).toBe(2);
    });
    expect(factsIn(s.index()).map((r) => r.what)).toEqual(["count/1"]);
    expect(factsIn(indexFileOf(inner, s.cacheHome)).map((r) => r.what)).toEqual(["other/1"]);
  });

  it("a file the run's walk listed is looked up by the walk's lstat (no stat of its own): a change after the walk is one snapshot with it, and what was read after the change is never reused; a symlink's own lstat stands for nothing", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    expect(await remembered(s.open(), ref, () => 1)).toEqual({ value: 1, computed: 1 });
    const walked = fs.lstatSync(s.file, { bigint: true });
    fs.appendFileSync(s.file, LINE);
    await inOneRun(s.open, async (cache) => {
      cache.noteStat(s.file, walked);
      expect(await cache.remember(ref, "count/1", async () => 2)).toBe(1); // as the walk saw it
      expect(await cache.remember(ref, "other/1", async () => 3)).toBe(3); // read after the change
    });
    // The walk saw the file settled, so what was read after it is kept under the walk's identity
    // with no stat of its own; the change moved the file's ctime, so that identity never comes back.
    expect(factsIn(s.index()).find((r) => r.what === "other/1")?.identity).toBe(statIdentity(walked));
    expect(await remembered(s.open(), ref, () => 4)).toEqual({ value: 4, computed: 1 }); // the next run sees the change
    const next = s.open();
    try {
      expect(await next.remember(ref, "other/1", async () => 5)).toBe(5);
    } finally {
      next.close();
    }
    const link = path.join(s.root, "link.jsonl");
    fs.symlinkSync(s.file, link);
    const linked = s.open();
    linked.noteStat(link, fs.lstatSync(link, { bigint: true }));
    expect(await remembered(linked, fileRef(link), () => 5)).toEqual({ value: 5, computed: 1 });
    expect(
      factsIn(s.index())
        .filter((r) => r.source === `file:none:${link}`)
        .map((r) => r.identity),
    ).toEqual([identity(s.file)]);
  });

  it("a file the walk saw changed less than 2 s before: its facts are checked when written, and a change after the read is not kept", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    const cache = s.open(() => Date.now() - 1000 + LATER); // the file is 1.1 s old when the walk sees it
    try {
      cache.noteStat(s.file, fs.lstatSync(s.file, { bigint: true }));
      expect(await cache.remember(ref, "count/1", async () => 1)).toBe(1);
      fs.appendFileSync(s.file, LINE);
    } finally {
      cache.close();
    }
    expect(factsIn(s.index())).toEqual([]);
  });

  it("a value its deriver says not to keep (cut short by a read error) is not kept", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    expect(
      await remembered(
        s.open(),
        ref,
        () => -1,
        (v) => v >= 0,
      ),
    ).toEqual({ value: -1, computed: 1 });
    expect(factsIn(s.index())).toEqual([]);
  });

  const eacces = () => Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });

  it("a read that noted a file it could not read is not kept: a new file, the same file again, a file in a dir already noted", async () => {
    const s = setup();
    const ref = fileRef(s.file);
    const dir = path.join(s.root, "sub");
    const cases: Array<{ what: string; before: () => void; during: () => void }> = [
      { what: "a new file", before: () => undefined, during: () => noteUnreadable(path.join(s.root, "x.jsonl"), eacces()) },
      { what: "the file again", before: () => noteUnreadable(s.file, eacces()), during: () => noteUnreadable(s.file, eacces()) },
      {
        what: "a file in a dir noted for the same cause",
        before: () => noteUnreadable(dir, eacces()),
        during: () => noteUnreadable(path.join(dir, "y.jsonl"), eacces()),
      },
    ];
    for (const c of cases) {
      const log = new UnreadableLog();
      const r = await log.run(async () => {
        c.before();
        return remembered(s.open(), ref, () => {
          c.during();
          return 1;
        });
      });
      expect(r, c.what).toEqual({ value: 1, computed: 1 });
      expect(factsIn(s.index()), c.what).toEqual([]);
    }
    // The same derivation without a note is kept.
    expect(await new UnreadableLog().run(() => remembered(s.open(), ref))).toEqual({ value: 1, computed: 1 });
    expect(factsIn(s.index())).toHaveLength(1);
  });

  it("a derivation that throws keeps nothing and the error reaches the caller", async () => {
    const s = setup();
    await expect(
      remembered(s.open(), fileRef(s.file), () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(factsIn(s.index())).toEqual([]);
  });

  it("off (--no-index, OPENCLAW_SESSIONS_INDEX=off): every call derives, no index file is made", async () => {
    for (const env of [{ OPENCLAW_SESSIONS_INDEX: "off" }, { OPENCLAW_SESSIONS_INDEX: "0" }, {}]) {
      const s = setup();
      const cache = new StoreCache({ env: { ...env, XDG_CACHE_HOME: s.cacheHome }, sqliteProof: () => null, warn: () => undefined });
      if (!("OPENCLAW_SESSIONS_INDEX" in env)) cache.disable();
      cache.addRoot(s.root, []);
      expect(cache.enabled).toBe(false);
      expect(await remembered(cache, fileRef(s.file))).toEqual({ value: 1, computed: 1 });
      expect(fs.readdirSync(s.cacheHome)).toEqual([]);
    }
  });
});

/** One run's `rememberAcross` of a counted derivation from `refs` and `inputs`; closed before it returns. */
async function rememberedAcross(cache: StoreCache, dir: string, refs: TranscriptRef[], inputs: string, compute: () => number) {
  let computed = 0;
  try {
    const value = await cache.rememberAcross(
      dir,
      "key-a",
      () => refs,
      () => inputs,
      "row/1",
      async () => {
        computed += 1;
        return compute();
      },
    );
    return { value, computed };
  } finally {
    cache.close();
  }
}

describe("rememberAcross: a value derived from several transcripts and other inputs", () => {
  const acrossRows = (s: { index: () => string }) => factsIn(s.index()).filter((r) => r.source.startsWith("across:"));

  /** A store whose index already holds a fact (of `remember`): not the index's first run. */
  async function indexed() {
    const s = setup();
    await remembered(s.open(), fileRef(s.file));
    return s;
  }

  it("an index's first run (no fact in it yet) derives without keeping; the next keeps", async () => {
    const s = setup();
    const refs = [fileRef(s.file)];
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 1)).toEqual({ value: 1, computed: 1 });
    expect(acrossRows(s)).toEqual([]);
    await remembered(s.open(), fileRef(s.file));
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 2)).toEqual({ value: 2, computed: 1 });
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 3)).toEqual({ value: 2, computed: 0 });
  });

  it("is reused while every transcript and the inputs are unchanged, and derived again after a change to any of them", async () => {
    const s = await indexed();
    const other = path.join(s.root, "b.jsonl");
    fs.writeFileSync(other, LINE);
    const refs = [fileRef(s.file), fileRef(other)];
    const across = (inputs: string, value: number) => rememberedAcross(s.open(), s.root, refs, inputs, () => value);
    expect(await across("entry 1", 1)).toEqual({ value: 1, computed: 1 });
    expect(await across("entry 1", 2)).toEqual({ value: 1, computed: 0 });
    expect(await across("entry 2", 3)).toEqual({ value: 3, computed: 1 }); // other inputs
    expect(await across("entry 2", 4)).toEqual({ value: 3, computed: 0 });
    fs.appendFileSync(other, LINE); // the second transcript grew
    expect(await across("entry 2", 5)).toEqual({ value: 5, computed: 1 });
    expect(await across("entry 2", 6)).toEqual({ value: 5, computed: 0 });
    expect(await rememberedAcross(s.open(), s.root, [refs[0]!], "entry 2", () => 7)).toEqual({ value: 7, computed: 1 }); // fewer transcripts
    fs.rmSync(other);
    expect(await across("entry 2", 8)).toEqual({ value: 8, computed: 1 });
    // One row per name and derivation, kept over the last.
    expect(acrossRows(s)).toHaveLength(1);
  });

  it("the inputs and each transcript are told apart: inputs that spell out a transcript's source and identity are not that transcript", async () => {
    const s = await indexed();
    const ref = fileRef(s.file);
    expect(await rememberedAcross(s.open(), s.root, [ref], "x", () => 1)).toEqual({ value: 1, computed: 1 });
    const spelled = `x\nfile:none:${s.file}\n${identity(s.file)}`;
    expect(await rememberedAcross(s.open(), s.root, [], spelled, () => 2)).toEqual({ value: 2, computed: 1 });
    expect(await rememberedAcross(s.open(), s.root, [ref], "x", () => 3)).toEqual({ value: 3, computed: 1 });
  });

  it("a transcript whose content cannot be proven (read with parts of others left out): derived every run, nothing kept", async () => {
    const s = await indexed();
    const refs: TranscriptRef[] = [fileRef(s.file), { ...fileRef(s.file), omitIdsOf: [fileRef(s.file)] }];
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 1)).toEqual({ value: 1, computed: 1 });
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 2)).toEqual({ value: 2, computed: 1 });
    expect(acrossRows(s)).toEqual([]);
  });

  it("the racy rule: not kept while a transcript changed less than 2 s before the run, nor when one changes after it was read", async () => {
    const s = await indexed();
    const refs = [fileRef(s.file)];
    expect(
      await rememberedAcross(
        s.open(() => Date.now()),
        s.root,
        refs,
        "",
        () => 1,
      ),
    ).toEqual({ value: 1, computed: 1 });
    expect(acrossRows(s)).toEqual([]);
    const cache = s.open();
    let computed = 0;
    await cache.rememberAcross(
      s.root,
      "key-a",
      () => refs,
      () => "",
      "row/1",
      async () => {
        computed += 1;
        fs.appendFileSync(s.file, LINE); // changed while derived: what was derived is not kept
        return 2;
      },
    );
    cache.close();
    expect(computed).toBe(1);
    expect(acrossRows(s)).toEqual([]);
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 3)).toEqual({ value: 3, computed: 1 });
    expect(await rememberedAcross(s.open(), s.root, refs, "", () => 4)).toEqual({ value: 3, computed: 0 });
  });

  it("off: every call derives, no index file is made", async () => {
    const s = setup();
    const cache = new StoreCache({ env: { XDG_CACHE_HOME: s.cacheHome }, sqliteProof: () => null, warn: () => undefined });
    cache.disable();
    cache.addRoot(s.root, []);
    expect(await rememberedAcross(cache, s.root, [fileRef(s.file)], "", () => 1)).toEqual({ value: 1, computed: 1 });
    expect(fs.readdirSync(s.cacheHome)).toEqual([]);
  });
});

describe("derived values (a store's attribution): kept by a digest of their inputs, the rest proven by the caller", () => {
  it("neither kept nor reused in an index's first run; then kept under the digest and read back by it alone", async () => {
    const s = setup();
    const first = s.open();
    expect(first.keepsDerived(s.root)).toBe(false);
    first.keepDerived(s.root, "store:x", "d1", "attribution/2", "v1");
    first.close();
    expect(factsIn(s.index()).filter((r) => r.what === "attribution/2")).toEqual([]);
    await remembered(s.open(), fileRef(s.file));

    const next = s.open();
    expect(next.keepsDerived(s.root)).toBe(true);
    next.keepDerived(s.root, "store:x", "d1", "attribution/2", "v1");
    next.close();
    const later = s.open();
    expect(later.recallDerived(s.root, "store:x", "d1", "attribution/2")).toBe("v1");
    expect(later.recallDerived(s.root, "store:x", "d2", "attribution/2")).toBeUndefined();
    expect(later.recallDerived(s.root, "store:y", "d1", "attribution/2")).toBeUndefined();
    later.close();
    const off = s.open();
    off.disable();
    expect(off.keepsDerived(s.root)).toBe(false);
    expect(off.recallDerived(s.root, "store:x", "d1", "attribution/2")).toBeUndefined();
  });

  it("a digest tells its parts apart (each is delimited) and holds the order", () => {
    const cache = setup().open();
    expect(cache.digestOf(["ab", "c"])).not.toBe(cache.digestOf(["a", "bc"]));
    expect(cache.digestOf(["a", "b"])).not.toBe(cache.digestOf(["b", "a"]));
    expect(cache.digestOf(["a\n", "b"])).not.toBe(cache.digestOf(["a", "\nb"]));
    expect(cache.digestOf(["a", "b"])).toBe(cache.digestOf(["a", "b"]));
  });

  it("a file's settled identity: the walk's, once it is 2 s old; none for a file changed since or just before", () => {
    const s = setup();
    const walked = (now: number) => {
      const cache = s.open(() => now);
      cache.noteStat(s.file, fs.lstatSync(s.file, { bigint: true }));
      return cache;
    };
    expect(walked(Date.now() + LATER).settledIdentity(fileRef(s.file))).toBe(identity(s.file));
    expect(walked(Date.now()).settledIdentity(fileRef(s.file))).toBeNull();
    const cache = walked(Date.now() + LATER);
    fs.appendFileSync(s.file, LINE);
    // The run's identity is the walk's (one snapshot): still that one, as settled as when walked.
    expect(cache.settledIdentity(fileRef(s.file))).not.toBe(identity(s.file));
    const unwalked = s.open();
    expect(unwalked.settledIdentity(fileRef(s.file))).toBeNull();
  });
});

describe("SQLite windows and archive rows: reused while their proof in the run's snapshot holds", () => {
  const MAIN = "agent:main:main";

  /** One run on the store: its session's remember of the main key's window and of the first archive row. */
  async function runOn(stateDir: string, home: string, cacheHome: string, value: number) {
    const session = openStoreSession({ env: { HOME: home, XDG_CACHE_HOME: cacheHome }, cwd: stateDir });
    try {
      const [index] = await session.indexes({ stateDir });
      const window = index!.sessions.find((x) => x.sessionKey === MAIN)!.active.ref!;
      expect(window.kind).toBe("sqlite");
      const refs = [...index!.sessions.flatMap((x) => x.archives.map((a) => a.ref)), ...index!.unattributed.map((u) => u.ref)];
      const archive = refs.find((r) => r?.kind === "sqlite-archive") ?? null;
      let computed = 0;
      const derive = async () => {
        computed += 1;
        return value;
      };
      const w = await session.remember(window, "count/1", derive);
      const a = archive ? await session.remember(archive, "count/1", derive) : null;
      return {
        w,
        a,
        computed,
        dbPath: window.kind === "sqlite" ? window.dbPath : "",
        sessionId: window.kind === "sqlite" ? window.sessionId : "",
      };
    } finally {
      session.close();
    }
  }

  it("new rows in a window make it derived again; an unchanged archive row is still reused", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-deleted");
    const cacheHome = tempDir("ocs-cache-home-");
    const first = await runOn(stateDir, home, cacheHome, 1);
    expect(first).toMatchObject({ w: 1, a: 1, computed: 2 });
    expect(await runOn(stateDir, home, cacheHome, 2)).toMatchObject({ w: 1, a: 1, computed: 0 });
    const db = openSqliteForWriting(first.dbPath);
    try {
      const max = Number(db.prepare("SELECT max(seq) AS m FROM transcript_events WHERE session_id = ?").get(first.sessionId)!.m);
      const line = JSON.stringify({
        type: "message",
        id: "n1",
        parentId: null,
        timestamp: "2026-12-01T10:00:00.000Z",
        message: { role: "user", content: "hi" },
      });
      run(
        db,
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
        first.sessionId,
        max + 1,
        line,
        1,
      );
    } finally {
      db.close();
    }
    expect(await runOn(stateDir, home, cacheHome, 3)).toMatchObject({ w: 3, a: 1, computed: 1 });
    expect(await runOn(stateDir, home, cacheHome, 4)).toMatchObject({ w: 3, a: 1, computed: 0 });
  });
});
