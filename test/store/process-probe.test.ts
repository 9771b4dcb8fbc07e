import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  isGatewayArgv,
  isOpenClawArgv,
  openClawProcessAlive,
  ownerStatus,
  parseLockPayload,
  pidAlive,
  readLockFile,
  readLockFileOrNull,
} from "../../src/store/process-probe.js";
import { tempDir } from "../helpers/temp.js";

describe("process facts", () => {
  it("pid 2147483647 is dead; this test runner's pid is alive; 0 and negatives are no pid", () => {
    expect(pidAlive(2147483647)).toBe(false);
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(0)).toBe(false);
    expect(pidAlive(-1)).toBe(false);
  });

  it("a zombie is dead", async () => {
    // A child that exits while nobody reaps it: `sh` execs `sleep`, whose own child exits at once.
    const child = spawn("sh", ["-c", "sleep 0 & exec sleep 3600"], { stdio: "ignore" });
    try {
      let zombie: number | null = null;
      while (zombie === null) {
        await new Promise((r) => setTimeout(r, 10));
        const kids = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
        const pid = kids ? Number(kids.split(" ")[0]) : NaN;
        if (Number.isInteger(pid) && /^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"))) zombie = pid;
      }
      expect(zombie).not.toBeNull();
      expect(pidAlive(zombie!)).toBe(false);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("OpenClaw's argv rules", () => {
  it("a Gateway's argv, as OpenClaw's isGatewayArgv", () => {
    expect(isGatewayArgv(["node", "/usr/lib/node_modules/openclaw/openclaw.mjs", "gateway", "--port", "18789"])).toBe(true);
    expect(isGatewayArgv(["openclaw", "gateway"])).toBe(true);
    expect(isGatewayArgv(["/opt/bin/openclaw-gateway"])).toBe(true);
    expect(isGatewayArgv(["node", "/x/openclaw.mjs", "agent"])).toBe(false);
    expect(isGatewayArgv(["vim", "gateway"])).toBe(false);
  });

  it("any OpenClaw process, as its session-owner rule", () => {
    expect(isOpenClawArgv(["openclaw", "doctor"])).toBe(true);
    expect(isOpenClawArgv(["node", "/usr/lib/node_modules/openclaw/openclaw.mjs", "agent"])).toBe(true);
    expect(isOpenClawArgv(["node", "/srv/oc/dist/index.js", "gateway"])).toBe(true);
    expect(isOpenClawArgv(["sleep", "600"])).toBe(false);
    expect(isOpenClawArgv(["node", "/srv/app/dist/index.js"])).toBe(false);
    expect(isOpenClawArgv(["openclaw-sessions", "restore"])).toBe(false);
  });
});

describe("the owner of a lock (resolveGatewayOwnerStatus)", () => {
  const probe = { alive: () => true, startTime: () => 42, argv: () => ["node", "x.js"] };
  it("start time first, then argv", () => {
    expect(ownerStatus(1, 42, isGatewayArgv, probe, "linux")).toBe("alive");
    expect(ownerStatus(1, 41, isGatewayArgv, probe, "linux")).toBe("dead");
    expect(ownerStatus(1, 42, isGatewayArgv, { ...probe, startTime: () => null }, "linux")).toBe("unknown");
    expect(ownerStatus(1, null, isGatewayArgv, probe, "linux")).toBe("dead");
    expect(ownerStatus(1, null, isGatewayArgv, { ...probe, argv: () => ["openclaw", "gateway"] }, "linux")).toBe("alive");
    expect(ownerStatus(1, null, isGatewayArgv, { ...probe, argv: () => null }, "linux")).toBe("unknown");
    expect(ownerStatus(1, null, isGatewayArgv, { ...probe, argv: () => null }, "darwin")).toBe("alive");
    expect(ownerStatus(1, 42, isGatewayArgv, { ...probe, alive: () => false }, "linux")).toBe("dead");
  });

  it("a live process that is not OpenClaw (a recycled pid) is no OpenClaw process; one that looks like it is", async () => {
    const sleeper = spawn("sleep", ["3600"], { stdio: "ignore" });
    const openclaw = spawn("sleep", ["3600"], { argv0: "openclaw", stdio: "ignore" });
    try {
      while (!fs.readFileSync(`/proc/${openclaw.pid}/cmdline`, "utf8").startsWith("openclaw")) await new Promise((r) => setTimeout(r, 10));
      expect(openClawProcessAlive(sleeper.pid!)).toBe(false);
      expect(openClawProcessAlive(openclaw.pid!)).toBe(true);
      expect(openClawProcessAlive(2147483647)).toBe(false);
    } finally {
      sleeper.kill("SIGKILL");
      openclaw.kill("SIGKILL");
    }
  });
});

describe("lock files and payloads", () => {
  it("reads a regular file's first 64 KiB; refuses a symlink and a FIFO without blocking", () => {
    const dir = tempDir("ocs-lockread-");
    const file = path.join(dir, "a.lock");
    fs.writeFileSync(file, `{"pid":1}${" ".repeat(100_000)}`);
    expect(readLockFile(file).text).toHaveLength(64 * 1024);
    fs.symlinkSync(file, path.join(dir, "link.lock"));
    expect(() => readLockFile(path.join(dir, "link.lock"))).toThrow(/a symlink, not a regular file/);
    execFileSync("mkfifo", [path.join(dir, "fifo.lock")]);
    expect(() => readLockFile(path.join(dir, "fifo.lock"))).toThrow(/FIFO/);
    expect(readLockFileOrNull(path.join(dir, "gone.lock"))).toBeNull();
  });

  it("parses either start-time spelling, a legacy numeric stamp, and nothing from a non-object", () => {
    expect(parseLockPayload('{"pid":7,"createdAt":"2026-07-01T00:00:00Z","startTime":5}')).toMatchObject({
      pid: 7,
      createdAt: "2026-07-01T00:00:00Z",
      startTime: 5,
    });
    expect(parseLockPayload('{"pid":7.5,"startedAt":0,"starttime":9}')).toMatchObject({
      pid: null,
      createdAt: "1970-01-01T00:00:00.000Z",
      startTime: 9,
    });
    expect(parseLockPayload("[1]")).toBeNull();
    expect(parseLockPayload("{nope")).toBeNull();
  });
});
