import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayLockName, gatewayOwnerStatus, isGatewayArgv, probeGatewayLocks } from "../../src/store/gateway-probe.js";
import { processStartTime } from "../../src/store/process-probe.js";
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

  it("recognises gateway argv as OpenClaw does", () => {
    expect(isGatewayArgv(["node", "/usr/lib/node_modules/openclaw/openclaw.mjs", "gateway", "--port", "18789"])).toBe(true);
    expect(isGatewayArgv(["openclaw", "gateway"])).toBe(true);
    expect(isGatewayArgv(["/opt/bin/openclaw-gateway"])).toBe(true);
    expect(isGatewayArgv(["node", "/x/openclaw.mjs", "agent"])).toBe(false);
    expect(isGatewayArgv(["vim", "gateway"])).toBe(false);
  });

  it("judges owners like resolveGatewayOwnerStatus: start time, then argv", () => {
    const probe = { alive: () => true, startTime: () => 42, argv: () => ["node", "x.js"] };
    expect(gatewayOwnerStatus(1, 42, probe, "linux")).toBe("alive");
    expect(gatewayOwnerStatus(1, 41, probe, "linux")).toBe("dead");
    expect(gatewayOwnerStatus(1, 42, { ...probe, startTime: () => null }, "linux")).toBe("unknown");
    expect(gatewayOwnerStatus(1, null, probe, "linux")).toBe("dead");
    expect(gatewayOwnerStatus(1, null, { ...probe, argv: () => ["openclaw", "gateway"] }, "linux")).toBe("alive");
    expect(gatewayOwnerStatus(1, null, { ...probe, argv: () => null }, "linux")).toBe("unknown");
    expect(gatewayOwnerStatus(1, null, { ...probe, argv: () => null }, "darwin")).toBe("alive");
    expect(gatewayOwnerStatus(1, 42, { ...probe, alive: () => false }, "linux")).toBe("dead");
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
    fs.writeFileSync(script, "setTimeout(() => {}, 60000);\n");
    const child = spawn(process.execPath, [script, "gateway"], { stdio: "ignore" });
    try {
      // wait until the child has exec'd, so /proc shows its argv
      for (let i = 0; i < 500 && !fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes("gateway"); i++)
        await new Promise((r) => setTimeout(r, 10));
      writeLock(t.lockDir, path.join(t.stateDir, "openclaw.json"), { pid: child.pid, port: 18789 });
      const [g] = probeGatewayLocks(t.stateDir, t.env);
      expect(g).toMatchObject({ pid: child.pid, status: "alive", blocking: true, port: 18789 });
    } finally {
      child.kill("SIGKILL");
    }
  });
});
