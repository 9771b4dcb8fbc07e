/**
 * `check` on clean stores (issue 27): the corpus stores that hold no damage and the stores
 * OpenClaw's own code wrote in fixtures/check-clean/ exit 0 under the default `--fail-on error`,
 * with no error finding, and are left as they were. What OpenClaw will do later is a warning with
 * its date; a session that has not started yet is a fact, the same one `timeline` states.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck, type CheckResult } from "../../src/commands/check.js";
import { cli } from "../helpers/cli.js";
import { copyState, CORPUS, fileScenarios, hashTree, openclawWrittenStores, ROOT, sqliteScenarios } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const CLEAN = path.join(ROOT, "fixtures", "check-clean");
const DAY = 86_400_000;

function copyWritten(era: string, name: string): { stateDir: string; home: string } {
  const root = tempDir(`ocs-clean-${name}-`);
  const stateDir = path.join(root, "state");
  fs.cpSync(path.join(CLEAN, era, name, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
  fs.mkdirSync(path.join(root, "home"));
  return { stateDir, home: path.join(root, "home") };
}

/**
 * Corpus stores that hold no damage: files/ scenarios whose manifest imitates no step (every step
 * ran through OpenClaw), and every sqlite/ scenario (their imitated steps only script message
 * content and the Doctor import's legacy input; README "Scenarios").
 */
function undamagedCorpus(): Array<["files" | "sqlite", string]> {
  const files = fileScenarios().filter((n) => {
    const m = JSON.parse(fs.readFileSync(path.join(CORPUS, "files", n, "manifest.json"), "utf8")) as { imitated: unknown[] };
    return m.imitated.length === 0;
  });
  return [...files.map((n) => ["files", n] as ["files", string]), ...sqliteScenarios().map((n) => ["sqlite", n] as ["sqlite", string])];
}

async function check(stateDir: string, home: string, now?: number): Promise<CheckResult> {
  return runCheck(
    { stateDir, allAgents: true, ...(now !== undefined ? { now } : {}) },
    storeContext({ env: { HOME: home }, cwd: stateDir }),
  );
}

const errors = (r: CheckResult) => r.findings.filter((f) => f.severity === "error").map((f) => `${f.code} ${f.path}`);

describe("check on the corpus stores that hold no damage", () => {
  it("the undamaged set is what the manifests say", () => {
    expect(undamagedCorpus().map(([era, n]) => `${era}/${n}`)).toEqual([
      "files/deleted-keys",
      "files/leaf-rewind",
      "files/manual-compact-bak",
      "files/oversized-message",
      "files/reset-chain",
      "files/single-active",
      "sqlite/doctor-import",
      "sqlite/sqlite-basic",
      "sqlite/sqlite-deleted",
      "sqlite/sqlite-reset",
    ]);
  });

  for (const [era, name] of undamagedCorpus()) {
    it(`${era}/${name}: exit 0 under the default --fail-on, just after the last write and two months later`, async () => {
      const { stateDir, home } = copyState(era, name);
      const before = hashTree(stateDir);
      const written = Date.parse("2026-07-01T09:30:00Z");
      for (const now of [written, written + 60 * DAY]) {
        const r = await check(stateDir, home, era === "files" ? now : undefined);
        expect(errors(r)).toEqual([]);
        const res = await cli(["check", "--state-dir", stateDir, "--all-agents", "--now", new Date(now).toISOString()], {
          env: { HOME: home },
        });
        expect(res.code).toBe(0);
      }
      expect(hashTree(stateDir)).toEqual(before);
    });
  }
});

describe("check on stores OpenClaw's own code wrote (fixtures/check-clean)", () => {
  for (const { era, name, manifest } of openclawWrittenStores()) {
    it(`${era}/${name}: exit 0, no error, store untouched`, async () => {
      const { stateDir, home } = copyWritten(era, name);
      const before = hashTree(stateDir);
      const now = manifest.checkAt ? Date.parse(manifest.checkAt) : undefined;
      expect(errors(await check(stateDir, home, now))).toEqual([]);
      const args = ["check", "--state-dir", stateDir, "--all-agents", ...(manifest.checkAt ? ["--now", manifest.checkAt] : [])];
      expect((await cli(args, { env: { HOME: home } })).code).toBe(0);
      expect(hashTree(stateDir)).toEqual(before);
    });
  }

  it("gateway-reset-unattributed: the /new archive no key owns is a warning carrying its prune date, also once overdue", async () => {
    const { stateDir, home } = copyWritten("files", "gateway-reset-unattributed");
    const soon = await check(stateDir, home, Date.parse("2026-07-01T10:20:00Z"));
    const f = soon.findings.find((x) => x.code === "UNATTRIBUTED_ARCHIVE_PRUNE")!;
    expect(f).toMatchObject({
      severity: "warn",
      data: { setting: "resetArchiveRetention", dueAtIso: "2026-07-31T09:05:00.000Z", overdue: false },
    });
    expect(path.basename(f.path!)).toMatch(/\.jsonl\.reset\.2026-07-01T09-05-00\.000Z$/);
    expect(f.message).toMatch(/in 29 day\(s\) \(on 2026-07-31\)/);
    expect(f.hint).toMatch(/before 2026-07-31/);
    const late = await check(stateDir, home, Date.parse("2026-08-15T00:00:00Z"));
    expect(late.findings.find((x) => x.code === "UNATTRIBUTED_ARCHIVE_PRUNE")).toMatchObject({ severity: "warn", data: { overdue: true } });
    expect(errors(late)).toEqual([]);
  });

  it("bare-new-not-started: SESSION_NOT_STARTED (info) for both keys, no ACTIVE_MISSING; timeline says the same", async () => {
    const { stateDir, home } = copyWritten("files", "bare-new-not-started");
    const r = await check(stateDir, home, Date.parse("2026-07-01T10:07:00Z"));
    expect(r.findings.some((f) => f.code === "ACTIVE_MISSING")).toBe(false);
    const notStarted = r.findings.filter((f) => f.code === "SESSION_NOT_STARTED");
    expect(notStarted.map((f) => [f.sessionKey, f.severity]).sort()).toEqual([
      ["agent:main:telegram:direct:424242", "info"],
      ["agent:main:telegram:direct:777", "info"],
    ]);
    const reset = notStarted.find((f) => f.sessionKey?.endsWith("424242"))!;
    expect(reset.message).toMatch(/has not started yet \(the key was reset; the conversation before it is [0-9a-f-]+\.jsonl\.reset\./);
    expect(notStarted.find((f) => f.sessionKey?.endsWith(":777"))!.message).toMatch(/has had no message since it was created/);
    expect(r.status).toBe("ok");
    const timeline = (
      await cli(["timeline", "agent:main:telegram:direct:424242", "--json", "--state-dir", stateDir, "--tz", "UTC"], {
        env: { HOME: home },
      })
    ).json();
    const last = timeline.events.filter((e: { type: string }) => e.type === "reset").at(-1);
    expect(last).toMatchObject({ toSessionId: reset.data!.sessionId, toSessionNotStarted: true });
  });

  it("sqlite/bare-new-not-started: 9.6's empty windows of new sessions are SESSION_NOT_STARTED, not ACTIVE_MISSING or TRANSCRIPT_EMPTY", async () => {
    const { stateDir, home } = copyWritten("sqlite", "bare-new-not-started");
    const r = await check(stateDir, home);
    expect(r.findings.map((f) => [f.code, f.sessionKey, f.severity]).sort()).toEqual([
      ["SESSION_NOT_STARTED", "agent:main:telegram:direct:424242", "info"],
      ["SESSION_NOT_STARTED", "agent:main:telegram:direct:777", "info"],
    ]);
    expect(r.findings.find((f) => f.sessionKey?.endsWith("424242"))!.message).toMatch(
      /the key was deleted and made again; its earlier conversation is [0-9a-f-]+\.jsonl\.deleted\./,
    );
  });
});
