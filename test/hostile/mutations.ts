/**
 * Seeded ways to damage a copy of a store: truncations, byte flips, invalid UTF-8, huge lines,
 * duplicate ids, parent cycles, 0-byte files, symlinks out of the store, `..` sessionFiles,
 * unreadable modes, broken sessions.json, times no Date can hold, any value in any field read. Each mutation works on real files in a temp dir.
 */
import fs from "node:fs";
import path from "node:path";
import { SESSION_ENTRY_FIELDS } from "../../src/core/model.js";

export type Rand = () => number;

export function seeded(seed: number): Rand {
  let s = seed >>> 0 || 1;
  return () => {
    // xorshift32
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export interface MutationContext {
  rand: Rand;
  sessionsDir: string;
  /** A file outside the store that must never change. */
  sentinel: string;
}

type Mutation = { name: string; apply: (ctx: MutationContext) => void };

const transcriptsOf = (dir: string) => filesUnder(dir).filter((f) => /\.jsonl/.test(path.basename(f)));
const storeOf = (dir: string) => path.join(dir, "sessions.json");

function rewriteLines(file: string, f: (lines: string[], rand: Rand) => string[], rand: Rand): void {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  fs.writeFileSync(file, f(lines, rand).join("\n"));
}

/**
 * Each line of one transcript, with chance `share`, parsed, handed to `edit` (with its message when
 * it has one) and written back; a line that is no JSON stays as it is.
 */
function editRecords(
  ctx: MutationContext,
  share: number,
  edit: (line: Record<string, unknown>, message: Record<string, unknown> | null, rand: Rand) => void,
): void {
  const files = transcriptsOf(ctx.sessionsDir);
  if (files.length === 0) return;
  rewriteLines(
    pick(ctx.rand, files),
    (lines, r) =>
      lines.map((l) => {
        if (r() >= share) return l;
        try {
          const v = JSON.parse(l) as Record<string, unknown>;
          const m = v.message;
          edit(v, m !== null && typeof m === "object" ? (m as Record<string, unknown>) : null, r);
          return JSON.stringify(v);
        } catch {
          return l;
        }
      }),
    ctx.rand,
  );
}

function editStore(ctx: MutationContext, f: (store: Record<string, unknown>) => void): void {
  const p = storeOf(ctx.sessionsDir);
  let store: Record<string, unknown>;
  try {
    store = JSON.parse(fs.readFileSync(p, "utf8"));
    if (typeof store !== "object" || store === null || Array.isArray(store)) return;
  } catch {
    return;
  }
  f(store);
  fs.writeFileSync(p, JSON.stringify(store, null, 2));
}

/**
 * Values of every JSON kind and edge a field may hold where the tool expects another: empty,
 * negative, past any Date or safe integer, control characters, a path out, deep nesting.
 */
function hostileValue(rand: Rand): unknown {
  const deep = (n: number): unknown => (n === 0 ? [] : [deep(n - 1)]);
  return pick(rand, [
    null,
    true,
    "",
    " ",
    "str",
    "../../x",
    "/",
    "\u001b[31mred\u001b[0m\u0007",
    "x".repeat(70_000),
    -1,
    0,
    -0,
    0.5,
    2 ** 53 + 2,
    1e308,
    -1e308,
    [],
    [null, 1, {}, "a"],
    {},
    { channel: 5, kind: [], id: {} },
    deep(2_000),
  ]);
}

/** Every field of a sessions.json entry the tool reads (core/model.ts SESSION_ENTRY_FIELDS), and a few it does not. */
const ENTRY_FIELDS = [...SESSION_ENTRY_FIELDS, "label", "displayName", "skillsSnapshot", "spawnedBy", "groupId"];

/** Fields of a transcript line and of its message that readers look at, and a few they do not. */
const LINE_FIELDS = ["type", "id", "parentId", "timestamp", "version", "cwd", "parentSession", "summary", "firstKeptEntryId"].concat([
  "tokensBefore",
  "tokensAfter",
  "details",
  "fromId",
  "targetId",
  "customType",
  "data",
  "reason",
  "fromHook",
  "label",
]);
const MESSAGE_FIELDS = ["role", "content", "timestamp", "usage", "stopReason", "model", "provider", "api", "toolName"].concat([
  "toolCallId",
  "isError",
  "errorMessage",
  "details",
  "excludeFromContext",
  "customType",
  "summary",
]);

export const MUTATIONS: Mutation[] = [
  {
    name: "truncate",
    apply: ({ rand, sessionsDir }) => {
      const f = pick(rand, filesUnder(sessionsDir));
      const size = fs.statSync(f).size;
      fs.truncateSync(f, Math.floor(rand() * size));
    },
  },
  {
    name: "flip-bytes",
    apply: ({ rand, sessionsDir }) => {
      const f = pick(rand, filesUnder(sessionsDir));
      const buf = fs.readFileSync(f);
      for (let i = 0; i < 1 + Math.floor(rand() * 8) && buf.length > 0; i++)
        buf[Math.floor(rand() * buf.length)] = Math.floor(rand() * 256);
      fs.writeFileSync(f, buf);
    },
  },
  {
    name: "invalid-utf8",
    apply: ({ rand, sessionsDir }) => {
      const files = transcriptsOf(sessionsDir);
      if (!files.length) return;
      const f = pick(rand, files);
      const buf = fs.readFileSync(f);
      const at = Math.floor(rand() * (buf.length + 1));
      fs.writeFileSync(f, Buffer.concat([buf.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), buf.subarray(at)]));
    },
  },
  {
    name: "huge-line",
    apply: ({ rand, sessionsDir }) => {
      const files = transcriptsOf(sessionsDir);
      if (!files.length) return;
      const text = "x".repeat(256 * 1024 + Math.floor(rand() * 1024 * 1024));
      const line = JSON.stringify({
        type: "message",
        id: "huge",
        parentId: null,
        timestamp: "2026-07-01T00:00:00Z",
        message: { role: "user", content: text },
      });
      fs.appendFileSync(pick(rand, files), `${line}\n`);
    },
  },
  {
    name: "duplicate-ids",
    apply: ({ rand, sessionsDir }) => {
      const files = transcriptsOf(sessionsDir);
      if (!files.length) return;
      rewriteLines(
        pick(rand, files),
        (lines, r) => {
          const i = Math.floor(r() * lines.length);
          return [...lines.slice(0, i + 1), lines[i] ?? "", ...lines.slice(i + 1)];
        },
        rand,
      );
    },
  },
  {
    name: "parent-cycle",
    apply: ({ rand, sessionsDir }) => {
      const files = transcriptsOf(sessionsDir);
      if (!files.length) return;
      rewriteLines(
        pick(rand, files),
        (lines, r) => {
          const parsed = lines.map((l) => {
            try {
              return JSON.parse(l) as Record<string, unknown>;
            } catch {
              return null;
            }
          });
          const ids = parsed.filter((p) => p && typeof p.id === "string").map((p) => p!.id as string);
          return parsed.map((p, i) => {
            if (!p || typeof p.id !== "string" || r() > 0.5) return lines[i]!;
            return JSON.stringify({ ...p, parentId: r() < 0.3 ? p.id : pick(r, ids) });
          });
        },
        rand,
      );
    },
  },
  {
    name: "zero-bytes",
    apply: ({ rand, sessionsDir }) => fs.writeFileSync(pick(rand, filesUnder(sessionsDir)), ""),
  },
  {
    name: "symlink-out",
    apply: ({ rand, sessionsDir, sentinel }) => {
      const name = pick(rand, ["escape.jsonl", "0b9c3f1e-5d2a-4c7b-9e8f-1a2b3c4d5e6f.jsonl.reset.2026-06-30T10-00-00.000Z", "loop.jsonl"]);
      const target = name === "loop.jsonl" ? path.join(sessionsDir, "loop.jsonl") : sentinel;
      try {
        fs.symlinkSync(target, path.join(sessionsDir, name));
      } catch {
        // already there
      }
    },
  },
  {
    name: "session-file-escape",
    apply: (ctx) =>
      editStore(ctx, (store) => {
        const key = pick(ctx.rand, Object.keys(store).concat(["agent:main:new"]));
        const entry = (typeof store[key] === "object" && store[key] !== null ? store[key] : { sessionId: "x", updatedAt: 1 }) as Record<
          string,
          unknown
        >;
        entry.sessionFile = pick(ctx.rand, [
          "../../../../etc/passwd",
          path.relative(ctx.sessionsDir, ctx.sentinel),
          ctx.sentinel,
          "sqlite:main:x:/tmp/db",
          "",
        ]);
        store[key] = entry;
      }),
  },
  {
    name: "store-garbage",
    apply: (ctx) => {
      const p = storeOf(ctx.sessionsDir);
      const choice = pick(ctx.rand, [
        "[]",
        "null",
        '"text"',
        "{",
        '{"a": 1, "b": null, "c": []}',
        '{"agent:main:main": {"sessionId": 42}}',
      ]);
      fs.writeFileSync(p, choice);
    },
  },
  {
    name: "entry-fields",
    apply: (ctx) =>
      editStore(ctx, (store) => {
        for (const k of Object.keys(store)) {
          if (ctx.rand() < 0.5) continue;
          const e = store[k] as Record<string, unknown>;
          if (typeof e !== "object" || e === null) continue;
          e[pick(ctx.rand, ["usageFamilySessionIds", "compactionCheckpoints", "updatedAt", "sessionId", "previousSessionId"])] = pick(
            ctx.rand,
            [null, "str", 42, [null, 1, {}], { preCompaction: null }, "../x"],
          );
        }
      }),
  },
  {
    name: "unreadable",
    apply: ({ rand, sessionsDir }) => fs.chmodSync(pick(rand, filesUnder(sessionsDir)), 0),
  },
  {
    // Numbers JSON holds and no Date can: formatting one throws, so each must read as no time.
    name: "times-out-of-range",
    apply: (ctx) => {
      const far = () => pick(ctx.rand, [1e20, -1e20, 8.64e15 + 1, 1e308, "+275760-09-13T00:00:00.001Z"]);
      editRecords(ctx, 0.5, (v, m) => {
        v.timestamp = far();
        if (m) m.timestamp = far();
      });
      editStore(ctx, (store) => {
        for (const e of Object.values(store)) {
          if (typeof e !== "object" || e === null) continue;
          for (const f of ["updatedAt", "lastActivityAt", "lastInteractionAt", "sessionStartedAt"])
            (e as Record<string, unknown>)[f] = far();
        }
      });
    },
  },
  {
    // Any field the tool reads, of any kind: each must read as what it is, never crash a command.
    name: "entry-any-field",
    apply: (ctx) =>
      editStore(ctx, (store) => {
        for (const e of Object.values(store)) {
          if (typeof e !== "object" || e === null || ctx.rand() < 0.4) continue;
          const fields = e as Record<string, unknown>;
          for (let n = 1 + Math.floor(ctx.rand() * 3); n > 0; n--) fields[pick(ctx.rand, ENTRY_FIELDS)] = hostileValue(ctx.rand);
        }
      }),
  },
  {
    name: "line-any-field",
    apply: (ctx) =>
      editRecords(ctx, 0.4, (v, m, r) => {
        if (m && r() < 0.5) {
          const f = pick(r, MESSAGE_FIELDS);
          m[f] = f === "usage" && r() < 0.5 ? { input: hostileValue(r), output: hostileValue(r), cost: hostileValue(r) } : hostileValue(r);
        } else v[pick(r, LINE_FIELDS)] = hostileValue(r);
      }),
  },
];

export function mutate(ctx: MutationContext, count: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const m = pick(ctx.rand, MUTATIONS);
    try {
      m.apply(ctx);
      names.push(m.name);
    } catch {
      names.push(`${m.name}(skipped)`);
    }
  }
  return names;
}
