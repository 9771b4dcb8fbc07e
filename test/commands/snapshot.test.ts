/**
 * `snapshot`: a vault outside the store. Real stores copied into temp dirs, the CLI in-process,
 * and the vault's files looked at directly: what a run keeps, what a second run of an unchanged
 * store costs (nothing), that an append costs its new lines and a renamed archive its record, that
 * a tampered chunk is named, a symlink in the vault refused and another store's vault refused.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";
import { zstdDecompressSync } from "../../src/store/lines.js";

function setup(era: "files" | "sqlite", name: string) {
  const s = copyState(era, name);
  const vault = path.join(tempDir("ocs-vault-"), "vault");
  const env = { HOME: s.home };
  const snap = (...extra: string[]) => cli(["snapshot", "--state-dir", s.stateDir, "--vault", vault, "--json", ...extra], { env });
  return { ...s, vault, env, snap };
}

/** Every raw byte the vault holds, decompressed and joined (for "is this text in the vault"). */
function vaultText(vault: string): string {
  const out: string[] = [];
  const dir = path.join(vault, "chunks");
  for (const sub of fs.readdirSync(dir))
    for (const f of fs.readdirSync(path.join(dir, sub)))
      out.push(zstdDecompressSync(fs.readFileSync(path.join(dir, sub, f))).toString("utf8"));
  return out.join("\n");
}

function sessionsFiles(stateDir: string): string[] {
  const dir = path.join(stateDir, "agents/main/sessions");
  return fs
    .readdirSync(dir)
    .filter((n) => n.includes(".jsonl"))
    .map((n) => path.join(dir, n));
}

describe("snapshot (file-backed store)", () => {
  it("keeps every transcript, archive, sessions.json; modes 0700/0600; the store is not touched", async () => {
    const t = setup("files", "reset-chain");
    const before = hashTree(t.stateDir);
    const r = await t.snap();
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    expect(doc.action).toBe("snapshot");
    expect(doc.run.added.length).toBe(doc.run.items);
    expect(doc.run.added).toContain("file:agents/main/sessions/sessions.json");
    expect(hashTree(t.stateDir)).toEqual(before);
    const text = vaultText(t.vault);
    for (const f of sessionsFiles(t.stateDir)) {
      const content = fs.readFileSync(f, "utf8");
      const complete = content.slice(0, content.lastIndexOf("\n") + 1);
      for (const line of complete.split("\n").filter(Boolean)) expect(text.includes(line), `${f}: ${line.slice(0, 60)}`).toBe(true);
    }
    expect(fs.statSync(t.vault).mode & 0o777).toBe(0o700);
    const chunkDir = path.join(t.vault, "chunks", fs.readdirSync(path.join(t.vault, "chunks"))[0]!);
    expect(fs.statSync(chunkDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(chunkDir, fs.readdirSync(chunkDir)[0]!)).mode & 0o777).toBe(0o600);
    const v = await t.snap("--verify");
    expect(v.code, v.stderr).toBe(0);
    expect(v.json().ok).toBe(true);
  });

  it("a second run of an unchanged store writes no chunk; an append costs its new complete lines; a renamed archive costs none", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    const again = (await t.snap()).json();
    expect(again.run.newChunks).toBe(0);
    expect(again.run.added).toEqual([]);
    expect(again.run.changed).toEqual([]);

    const active = sessionsFiles(t.stateDir).find((f) => f.endsWith(".jsonl"))!;
    const appended = `${JSON.stringify({ type: "message", id: "zz-appended-1", message: { role: "user", content: "appended after the first run" } })}\n`;
    const partial = '{"type":"message","id":"zz-half-written';
    fs.appendFileSync(active, appended + partial);
    const grown = (await t.snap()).json();
    expect(grown.run.changed).toContain(`file:${path.relative(t.stateDir, active)}`);
    expect(grown.run.newRawBytes).toBeLessThan(appended.length + 4096); // the new line (and the item table's piece), not the file
    const text = vaultText(t.vault);
    expect(text).toContain("appended after the first run");
    expect(text).not.toContain("zz-half-written"); // only complete lines of a file being written

    // OpenClaw's reset: a plain rename of the active file.
    fs.writeFileSync(active, fs.readFileSync(active, "utf8").slice(0, -partial.length)); // the half line is gone again
    expect((await t.snap()).code).toBe(0);
    const renamed = `${active}.reset.2026-07-02T00-00-00.000Z`;
    fs.renameSync(active, renamed);
    const after = (await t.snap()).json();
    expect(after.run.added).toContain(`file:${path.relative(t.stateDir, renamed)}`);
    expect(after.run.disappeared.map((d: { id: string }) => d.id)).toContain(`file:${path.relative(t.stateDir, active)}`);
    expect(after.run.newStoredBytes).toBeLessThanOrEqual(1024); // at most the item table's changed pieces
    const status = await t.snap("--status");
    expect(status.code).toBe(0);
    expect(status.json().vaultOnly).toBeGreaterThanOrEqual(1);
  });

  it("names a tampered chunk, refuses a symlink in the vault and reads nothing through it", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    const chunks = path.join(t.vault, "chunks");
    const sub = fs.readdirSync(chunks).sort()[0]!;
    const victim = fs.readdirSync(path.join(chunks, sub))[0]!;
    const zlib = process.getBuiltinModule("node:zlib");
    fs.writeFileSync(path.join(chunks, sub, victim), zlib.zstdCompressSync(Buffer.from("not what it was\n")));
    const v = await t.snap("--verify");
    expect(v.code).toBe(1);
    expect(v.json().problems.map((p: { what: string }) => p.what)).toContain(`chunk ${victim.slice(0, -4)}`);
    expect(v.stderr).toContain(victim.slice(0, 20));

    // A chunk dir that is a symlink to a dir outside the vault: refused, nothing behind it read.
    const outside = tempDir("ocs-outside-");
    const free = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")).find((h) => !fs.existsSync(path.join(chunks, h)))!;
    fs.writeFileSync(path.join(outside, `${free.repeat(32)}.zst`), "secret");
    fs.symlinkSync(outside, path.join(chunks, free));
    const v2 = await t.snap("--verify");
    expect(v2.code).toBe(1);
    const bad = v2.json().problems.find((p: { what: string }) => p.what === free);
    expect(bad.problem).toContain("symbolic link");
    // The vault dir itself as a symlink: refused with one line.
    const link = path.join(path.dirname(t.vault), "link");
    fs.symlinkSync(t.vault, link);
    const r = await cli(["snapshot", "--state-dir", t.stateDir, "--vault", link], { env: t.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("symbolic link");
  });

  it("refuses a vault of another store, and a vault inside the state dir", async () => {
    const a = setup("files", "reset-chain");
    const b = copyState("files", "single-active");
    expect((await a.snap()).code).toBe(0);
    const r = await cli(["snapshot", "--state-dir", b.stateDir, "--vault", a.vault], { env: { HOME: b.home } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("belongs to the store");
    expect(r.stderr.trim().split("\n")[0]).toMatch(/VAULT|vault/);
    const inside = await cli(["snapshot", "--state-dir", b.stateDir, "--vault", path.join(b.stateDir, "vault")], { env: { HOME: b.home } });
    expect(inside.code).toBe(2);
    expect(fs.existsSync(path.join(b.stateDir, "vault"))).toBe(false);
  });

  it("--prune is a dry run until --yes; --schedule prints a crontab line and a systemd timer", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    const active = sessionsFiles(t.stateDir).find((f) => f.endsWith(".jsonl"))!;
    fs.rmSync(active);
    expect((await t.snap()).code).toBe(0);
    const dry = await t.snap("--prune", "--keep", "1");
    expect(dry.code).toBe(0);
    expect(dry.json().applied).toBe(false);
    expect(dry.json().removedRuns.length).toBe(1);
    expect(dry.json().lostItems).toContain(`file:${path.relative(t.stateDir, active)}`);
    expect(fs.readdirSync(path.join(t.vault, "runs")).length).toBe(2);
    const yes = await t.snap("--prune", "--keep", "1", "--yes");
    expect(yes.json().applied).toBe(true);
    expect(fs.readdirSync(path.join(t.vault, "runs")).length).toBe(1);
    expect((await t.snap("--verify")).json().ok).toBe(true);
    const noKeep = await t.snap("--prune");
    expect(noKeep.code).toBe(2);

    const s = await cli(["snapshot", "--schedule", "--every", "10", "--state-dir", t.stateDir, "--vault", t.vault], { env: t.env });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/^\*\/10 \* \* \* \* .*snapshot --state-dir .* --vault .* --quiet/m);
    expect(s.stdout).toMatch(/^55 3 \* \* \* /m); // 7.1's daily reset at 04:00
    expect(s.stdout).toContain("OnCalendar=*:0/10");
  });
});

describe("snapshot: a run's item table as the changes since the previous run's", () => {
  it("a renamed archive (OpenClaw's reset) costs its two item lines, under 1 KiB; --verify, --prune and reads see the same items", async () => {
    const t = setup("files", "reset-chain");
    const first = await t.snap();
    expect(first.code, first.stderr).toBe(0);
    const runsDir = path.join(t.vault, "runs");
    const record = (id: string) => JSON.parse(fs.readFileSync(path.join(runsDir, `${id}.json`), "utf8"));
    expect(record(first.json().run.runId).items.index).toBeDefined();

    // OpenClaw's reset: the active transcript renamed to an archive.
    const sessions = path.join(t.stateDir, "agents/main/sessions");
    const archive = "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl.reset.2026-07-02T04-00-00.000Z";
    fs.renameSync(path.join(sessions, "f1091dc4-aaaf-4980-b920-36af23252a48.jsonl"), path.join(sessions, archive));
    const renamed = await t.snap();
    expect(renamed.code, renamed.stderr).toBe(0);
    const run = renamed.json().run;
    expect(run.newStoredBytes).toBeLessThanOrEqual(1024);
    expect(record(run.runId).items).toMatchObject({ base: first.json().run.runId, depth: 1 });

    // Nothing changed: the very same table, no chunk at all.
    const same = (await t.snap()).json().run;
    expect(same.newChunks).toBe(0);
    expect(record(same.runId).items).toEqual(record(run.runId).items);
    expect((await t.snap("--verify")).json().ok).toBe(true);

    // --prune --keep 1: the kept run reads through removed ones, so it gets a whole table first.
    const pruned = await t.snap("--prune", "--keep", "1", "--yes");
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.json().removedRuns).toHaveLength(2);
    expect(record(same.runId).items.index).toBeDefined();
    expect((await t.snap("--verify")).json().ok).toBe(true);
    fs.rmSync(path.join(sessions, archive));
    const found = await cli(["grep", "-F", "translate 'hello'", "--json", "--state-dir", t.stateDir, "--vault", t.vault], { env: t.env });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.stringify(found.json())).toContain(`${t.vault}#file:agents/main/sessions/${archive}`);
  });
});

describe("snapshot --schedule: a run before each key's daily reset", () => {
  it("takes each key's hour from its own reset policy, in both eras", async () => {
    const schedule = async (t: ReturnType<typeof setup>, session: Record<string, unknown>) => {
      if (!fs.existsSync(t.vault)) expect((await t.snap()).code).toBe(0);
      fs.writeFileSync(path.join(t.stateDir, "openclaw.json"), JSON.stringify({ session }));
      const r = await cli(["snapshot", "--schedule", "--json", "--state-dir", t.stateDir, "--vault", t.vault], { env: t.env });
      expect(r.code, r.stderr).toBe(0);
      return r.json();
    };
    const files = setup("files", "reset-chain");
    // The Telegram key by its channel's entry (daily at 06:00), the main session by session.reset (02:00).
    const both = await schedule(files, { reset: { atHour: 2 }, resetByChannel: { telegram: { mode: "daily", atHour: 6 } } });
    expect([both.resetHours, both.resetHour]).toEqual([[2, 6], 2]);
    expect(both.crontab.filter((l: string) => /^55 /.test(l)).map((l: string) => l.split(" ")[1])).toEqual(["1", "5"]);
    expect((await schedule(files, { reset: { mode: "idle", idleMinutes: 60 } })).resetHours).toEqual([]);
    // 9.6 resets no key on its own, but a reset setting without a mode means daily at 04:00 (and the idle limit).
    const sqlite = setup("sqlite", "sqlite-reset");
    expect((await schedule(sqlite, {})).resetHours).toEqual([]);
    expect((await schedule(sqlite, { reset: { idleMinutes: 30 } })).resetHours).toEqual([4]);
  });
});

describe("snapshot --schedule --yes", () => {
  it("installs its lines in the user's crontab beside the user's own, replaces them on a second run, and refuses without crontab", async () => {
    const t = setup("files", "reset-chain");
    expect((await t.snap()).code).toBe(0);
    // crontab(1) as the test sees it: -l prints the table (none yet: exit 1, as cronie says), - replaces it.
    const bin = tempDir("ocs-crontab-");
    const table = path.join(bin, "table");
    fs.writeFileSync(
      path.join(bin, "crontab"),
      `#!/bin/sh\nif [ "$1" = "-l" ]; then [ -f "${table}" ] || { echo "no crontab for you" >&2; exit 1; }; cat "${table}"; exit 0; fi\n[ "$1" = "-" ] && cat > "${table}"\n`,
      { mode: 0o755 },
    );
    const schedule = (every: string, PATH: string) =>
      cli(["snapshot", "--schedule", "--every", every, "--yes", "--json", "--state-dir", t.stateDir, "--vault", t.vault], {
        env: { ...t.env, PATH },
      });
    const withCrontab = `${bin}:${process.env.PATH}`;

    const first = await schedule("10", withCrontab);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().installed).toBe(true);
    expect(fs.readFileSync(table, "utf8")).toBe(`${first.json().crontab.join("\n")}\n`);

    fs.writeFileSync(table, `0 1 * * * /usr/local/bin/backup.sh\n${fs.readFileSync(table, "utf8")}`);
    const second = await schedule("15", withCrontab);
    expect(second.code, second.stderr).toBe(0);
    const lines = fs.readFileSync(table, "utf8").trimEnd().split("\n");
    expect(lines[0]).toBe("0 1 * * * /usr/local/bin/backup.sh");
    expect(lines.slice(1)).toEqual(second.json().crontab);
    expect(lines.filter((l) => l.startsWith("*/10"))).toEqual([]);

    const none = await schedule("10", tempDir("ocs-no-crontab-"));
    expect(none.code).toBe(5);
    expect(none.json().error.code).toBe("CRONTAB_UNAVAILABLE");
    expect(fs.readFileSync(table, "utf8").trimEnd().split("\n")).toEqual(lines);
  });
});

describe("snapshot (SQLite store)", () => {
  it("keeps each window's events, the entries and archive rows; an unchanged second run writes nothing", async () => {
    const t = setup("sqlite", "sqlite-reset");
    const r = await t.snap();
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    const ids: string[] = doc.run.added;
    expect(ids.some((id) => id.startsWith("window:main:"))).toBe(true);
    expect(ids).toContain("entries:main");
    const again = (await t.snap()).json();
    expect(again.run.newChunks).toBe(0);
    expect((await t.snap("--verify")).json().ok).toBe(true);
    expect(fs.readdirSync(t.stateDir, { recursive: true }).some((n) => String(n).includes("vault"))).toBe(false);
  });
});

describe("snapshot --json documents match docs/schema/snapshot.schema.json", () => {
  it("a run, --verify, --status, --prune and --schedule validate", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const { ROOT } = await import("../helpers/corpus.js");
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
      JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema/snapshot.schema.json"), "utf8")),
    );
    const t = setup("sqlite", "sqlite-deleted");
    for (const extra of [[], ["--verify"], ["--status"], ["--prune", "--keep", "30d"], ["--schedule"]]) {
      const r = await t.snap(...extra);
      expect(r.code, r.stderr).toBe(0);
      expect(validate(r.json()), `${extra.join(" ")}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
