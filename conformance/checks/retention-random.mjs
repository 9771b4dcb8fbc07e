/**
 * The retention and disk budget `check` judges archives by, against OpenClaw's own maintenance
 * resolution (`resolveMaintenanceConfigFromInput`) of each release, on random `session.maintenance`
 * settings. On a copy of a corpus store of each era (written by OpenClaw's own code), for N random
 * settings (`mode`, `pruneAfter`, 7.1's `pruneDays`, `resetArchiveRetention`, `maxDiskBytes`,
 * `highWaterBytes`; durations and sizes in every spelling OpenClaw parses, and some it does not: a
 * space, a week, "MiB", a negative, a word), `check --json` reports its `retention` row, and each
 * field must be what OpenClaw resolves: `mode`, `maxDiskBytes`, `highWaterBytes`, and how long each
 * kind of archive is kept: `resetArchiveRetentionMs`, and `pruneAfterMs` for `.deleted` archives
 * (7.1 prunes them by `pruneAfter`; 9.6 sweeps them by `resetArchiveRetention`, docs/check.md).
 * OPENCLAW_SESSIONS_RETENTION_RANDOM_N sets N (default 150 per release), OPENCLAW_SESSIONS_RETENTION_RANDOM_SEED the seed (default 1400).
 */
import fs from "node:fs";
import path from "node:path";
import { distFunctions } from "../lib/dist-functions.mjs";
import { prng } from "../lib/store-plan.mjs";

const pick = (rand, list) => list[Math.floor(rand() * list.length)];

function duration(rand) {
  const n = () => (rand() < 0.8 ? String(1 + Math.floor(rand() * 90)) : (rand() * 40).toFixed(1));
  return pick(rand, [
    () => 1 + Math.floor(rand() * 60), // a bare number: days
    () => n(),
    () => `${n()}${pick(rand, ["d", "h", "m", "s", "ms", "D", "H"])}`,
    () => `${1 + Math.floor(rand() * 3)}d${Math.floor(rand() * 24)}h`,
    () => ` ${n()}d `,
    () => pick(rand, ["1w", "12 h", "soon", "-1d", "1h 30m", "", false, true, 0, "0"]),
  ])();
}

function size(rand) {
  const n = () => (rand() < 0.8 ? String(1 + Math.floor(rand() * 900)) : (rand() * 9).toFixed(2));
  return pick(rand, [
    () => 1 + Math.floor(rand() * 1e9),
    () => `${n()}${pick(rand, ["b", "k", "kb", "mb", "m", "gb", "g", "GB", "tb"])}`,
    () => pick(rand, ["500 MiB", "10 gb", "1.5gib", "lots", "-5mb", "", false, 0, "0", "0b"]),
  ])();
}

function maintenanceSettings(rand) {
  const m = {};
  if (rand() < 0.3) m.mode = pick(rand, ["enforce", "warn", "enforce"]);
  if (rand() < 0.5) m.pruneAfter = duration(rand);
  if (rand() < 0.3) m.pruneDays = rand() < 0.8 ? 1 + Math.floor(rand() * 60) : duration(rand);
  if (rand() < 0.5) m.resetArchiveRetention = rand() < 0.2 ? false : duration(rand);
  if (rand() < 0.5) m.maxDiskBytes = size(rand);
  if (rand() < 0.4) m.highWaterBytes = size(rand);
  return m;
}

/** OpenClaw's resolution, as `check` reports it: `.deleted` archives go by pruneAfter in 7.1, by resetArchiveRetention in 9.6. */
function expectedRow(era, resolve, maintenance) {
  const r = resolve(maintenance);
  return {
    mode: r.mode,
    pruneAfterMs: era === "files" ? r.pruneAfterMs : r.resetArchiveRetentionMs,
    resetArchiveRetentionMs: r.resetArchiveRetentionMs,
    maxDiskBytes: r.maxDiskBytes,
    highWaterBytes: r.highWaterBytes,
  };
}

async function checkRelease(ctx, era, packageDir, corpusStore, seed, n, tally) {
  const dir = path.join(ctx.tmpDir, era);
  const stateDir = path.join(dir, "state");
  fs.cpSync(path.join(ctx.repoRoot, "fixtures/corpus", corpusStore, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
  const { resolveMaintenanceConfigFromInput: resolve } = await distFunctions(packageDir, {
    exported: ["resolveMaintenanceConfigFromInput"],
    tmpDir: dir,
  });
  const rand = prng(seed);
  for (let i = 0; i < n; i++) {
    const maintenance = maintenanceSettings(rand);
    fs.writeFileSync(path.join(stateDir, "openclaw.json"), `${JSON.stringify({ session: { maintenance } }, null, 2)}\n`);
    const r = await ctx.cli(["check", "--json", "--no-index", "--now", "2026-12-01T12:00:00Z", "--state-dir", stateDir]);
    let rows;
    try {
      rows = JSON.parse(r.stdout).retention;
    } catch {
      throw new Error(`${era} settings ${JSON.stringify(maintenance)}: check exited ${r.code}: ${r.stderr.trim().split("\n")[0]}`);
    }
    const want = expectedRow(era, resolve, maintenance);
    for (const row of rows) {
      const got = Object.fromEntries(Object.keys(want).map((k) => [k, row[k]]));
      if (JSON.stringify(got) !== JSON.stringify(want))
        throw new Error(
          `${era} (OpenClaw ${era === "files" ? "2026.7.1" : "2026.9.6"}) session.maintenance ${JSON.stringify(maintenance)}: ` +
            `check says ${JSON.stringify(got)}, OpenClaw ${JSON.stringify(want)}`,
        );
    }
    for (const [k, v] of Object.entries(want)) if (v === null) tally.set(`${era} ${k} null`, (tally.get(`${era} ${k} null`) ?? 0) + 1);
    tally.set(`${era} settings`, (tally.get(`${era} settings`) ?? 0) + 1);
  }
}

export default async function retentionRandom(ctx) {
  const n = Number(process.env.OPENCLAW_SESSIONS_RETENTION_RANDOM_N) || 150;
  const seed = Number(process.env.OPENCLAW_SESSIONS_RETENTION_RANDOM_SEED) || 1400;
  const tally = new Map();
  await checkRelease(ctx, "files", ctx.openclaw71Dir, "files/reset-chain", seed, n, tally);
  await checkRelease(ctx, "sqlite", ctx.openclaw96Dir, "sqlite/sqlite-reset", seed + 1, n, tally);
  const parts = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k} ${v}`);
  return `${n} random maintenance settings per release (seeds ${seed}, ${seed + 1}), each resolved as OpenClaw does: ${parts.join(", ")}`;
}
