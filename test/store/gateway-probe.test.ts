import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayLockName, probeGatewayLocks } from "../../src/store/gateway-probe.js";
import { processStartTime } from "../../src/store/process-probe.js";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function tmpEnv() {
  const root = tempDir("ocs-gw-");
  roots.push(root);
  const stateDir = path.join(root, "state");
  fs.mkdirSync(stateDir);
  const lockDir = path.join(root, "tmp", `openclaw-${process.getuid!()}`);
  fs.mkdirSync(lockDir, { recursive: true });
  return { root, stateDir, lockDir, env: { TMPDIR: path.join(root, "tmp") } };
}

function writeLock(lockDir: string, configPath: string, payload: Record<string, unknown>): string {
  const file = path.join(lockDir, gatewayLockName(configPath));
  fs.writeFileSync(file, JSON.stringify({ configPath, createdAt: new Date().toISOString(), ...payload }));
  return file;
}

describe("gateway lock probe (OpenClaw 7.1 layout and owner rules)", () => {
  it("names the lock gateway.<sha256(configPath)[:8]>.lock", () => {
    const cfg = "/home/u/.openclaw/openclaw.json";
    expect(gatewayLockName(cfg)).toBe(`gateway.${crypto.createHash("sha256").update(cfg).digest("hex").slice(0, 8)}.lock`);
  });

  it("finds a live gateway of this state dir (pid + start time), ignores dead ones and other state dirs", () => {
    const t = tmpEnv();
    const cfg = path.join(t.stateDir, "openclaw.json");
    const live = writeLock(t.lockDir, cfg, { pid: process.pid, startTime: processStartTime(process.pid) });
    writeLock(t.lockDir, "/elsewhere/openclaw.json", { pid: process.pid, startTime: processStartTime(process.pid) });
    const found = probeGatewayLocks(t.stateDir, t.env);
    expect(found.map((g) => [g.path, g.status, g.blocking])).toEqual([[live, "alive", true]]);

    fs.writeFileSync(live, JSON.stringify({ pid: 2147483647, createdAt: new Date().toISOString(), configPath: cfg }));
    expect(probeGatewayLocks(t.stateDir, t.env).map((g) => [g.status, g.blocking])).toEqual([["dead", false]]);
    // a live pid whose argv is no gateway (this test runner) is not a gateway
    fs.writeFileSync(live, JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString(), configPath: cfg }));
    expect(probeGatewayLocks(t.stateDir, t.env).map((g) => g.status)).toEqual(["dead"]);
  });

  it("an owner it cannot judge blocks for 30 s after createdAt, as OpenClaw waits that long", () => {
    const t = tmpEnv();
    const cfg = path.join(t.stateDir, "openclaw.json");
    const file = path.join(t.lockDir, gatewayLockName(cfg));
    fs.writeFileSync(file, "");
    expect(probeGatewayLocks(t.stateDir, t.env).map((g) => [g.status, g.blocking])).toEqual([["unknown", true]]);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    expect(probeGatewayLocks(t.stateDir, t.env).map((g) => [g.status, g.blocking])).toEqual([["unknown", false]]);
  });

  it("a real process with gateway argv and no startTime is alive", async () => {
    const t = tmpEnv();
    const script = path.join(t.root, "openclaw.mjs");
    fs.writeFileSync(script, "setInterval(() => {}, 60_000);\n"); // until killed
    const child = spawn(process.execPath, [script, "gateway"], { stdio: "ignore" });
    try {
      // wait until the child has exec'd, so /proc shows its argv
      while (!fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes("gateway")) await new Promise((r) => setTimeout(r, 10));
      writeLock(t.lockDir, path.join(t.stateDir, "openclaw.json"), { pid: child.pid, port: 18789 });
      const [g] = probeGatewayLocks(t.stateDir, t.env);
      expect(g).toMatchObject({ pid: child.pid, status: "alive", blocking: true, port: 18789 });
    } finally {
      child.kill("SIGKILL");
    }
  });
});

/**
 * One probe, both eras: a gateway lock whose pid now runs something that is not OpenClaw (a
 * recycled pid) refuses no restore, dry run or applied; a live OpenClaw-looking owner refuses both
 * (exit 5, GATEWAY_RUNNING), and nothing is written.
 */
describe("is OpenClaw running: both eras' restores agree", () => {
  const eras = [
    { era: "files", scenario: "reset-chain", archive: "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z" },
    {
      era: "sqlite",
      scenario: "sqlite-deleted",
      archive: "896b0937-ca5a-49f5-a00e-8de023b7a034.jsonl.deleted.2026-11-30T01-45-34.142Z.3eb20961b0cd4a7181537b66f5edef28.zst",
    },
  ] as const;

  async function running(argv: string[], argv0?: string) {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore", ...(argv0 ? { argv0 } : {}) });
    const want = argv0 ?? argv[0]!;
    // wait until the child has exec'd, so /proc shows its argv
    while (!fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes(path.basename(argv.at(-1)!)))
      await new Promise((r) => setTimeout(r, 10));
    expect(fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8")).toContain(path.basename(want));
    return child;
  }

  function restoreIn(era: (typeof eras)[number], pid: number, extra: Record<string, unknown> = {}) {
    const s = copyState(era.era, era.scenario);
    const lockDir = path.join(s.stateDir, "tmp", `openclaw-${process.getuid!()}`);
    fs.mkdirSync(lockDir, { recursive: true });
    writeLock(lockDir, path.join(s.stateDir, "openclaw.json"), { pid, ...extra });
    const env = { HOME: s.home, XDG_STATE_HOME: path.join(s.root, "xdg") };
    const run = (...args: string[]) => cli(["restore", era.archive, "--state-dir", s.stateDir, "--json", ...args], { env });
    return { ...s, run };
  }

  const codes = (r: { json: () => { refusals?: Array<{ code: string }>; error?: { code: string } } }) => {
    const j = r.json();
    return [...(j.refusals ?? []).map((f) => f.code), ...(j.error ? [j.error.code] : [])];
  };

  for (const era of eras) {
    it(`${era.era} era: a live pid that is not OpenClaw (sleep) refuses neither the dry run nor --yes`, async () => {
      const sleeper = await running(["sleep", "3600"]);
      try {
        const s = restoreIn(era, sleeper.pid!);
        const plan = await s.run();
        expect(plan.code, plan.stderr).toBe(0);
        expect(codes(plan)).not.toContain("GATEWAY_RUNNING");
        const applied = await s.run("--yes");
        expect(applied.code, applied.stderr).toBe(0);
        expect(applied.json().applied).toBe(true);
      } finally {
        sleeper.kill("SIGKILL");
      }
    });

    it(`${era.era} era: a Gateway whose recorded start time is not the process's (a recycled pid) refuses nothing`, async () => {
      const script = path.join(tempDir("ocs-gw-bin-"), "openclaw.mjs");
      fs.writeFileSync(script, "setInterval(() => {}, 60_000);\n"); // until killed
      const gateway = await running([process.execPath, script, "gateway"]);
      try {
        const s = restoreIn(era, gateway.pid!, { startTime: processStartTime(gateway.pid!)! + 1 });
        expect((await s.run()).code).toBe(0);
        const applied = await s.run("--yes");
        expect(applied.code, applied.stderr).toBe(0);
      } finally {
        gateway.kill("SIGKILL");
      }
    });

    it(`${era.era} era: a live OpenClaw Gateway refuses the dry run and --yes (exit 5), nothing written`, async () => {
      const script = path.join(tempDir("ocs-gw-bin-"), "openclaw.mjs");
      fs.writeFileSync(script, "setInterval(() => {}, 60_000);\n"); // until killed
      const gateway = await running([process.execPath, script, "gateway"]);
      try {
        const s = restoreIn(era, gateway.pid!);
        const before = hashTree(s.stateDir);
        const plan = await s.run();
        expect(plan.code).toBe(5);
        expect(codes(plan)).toContain("GATEWAY_RUNNING");
        const applied = await s.run("--yes");
        expect(applied.code).toBe(5);
        expect(codes(applied)).toContain("GATEWAY_RUNNING");
        expect(applied.stderr).toContain(`pid ${gateway.pid}`);
        expect(hashTree(s.stateDir)).toEqual(before);
      } finally {
        gateway.kill("SIGKILL");
      }
    });
  }
});
