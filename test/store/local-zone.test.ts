/**
 * What decides the machine's own zone, told without Intl: the store-wide timeline keys its kept
 * answer on it, so a warm run never loads ICU, and the answer it hands back names the zone Intl gives.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runTimeline, type TimelineSummaryResult } from "../../src/commands/timeline.js";
import { localZoneSource, machineTimeZone } from "../../src/store/local-zone.js";
import type { StoreSession } from "../../src/store/index.js";
import { openStoreSession } from "../../src/store/session.js";
import { BIN } from "../helpers/built-cli.js";
import { copyState } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { utcLinked } from "../helpers/local-zone.js";

const linked = (() => {
  try {
    return fs.readlinkSync("/etc/localtime").includes("/zoneinfo/");
  } catch {
    return false;
  }
})();

const processTz = process.env.TZ;
beforeEach(() => {
  delete process.env.TZ;
});
afterEach(() => {
  if (processTz === undefined) delete process.env.TZ;
  else process.env.TZ = processTz;
});

describe("localZoneSource", () => {
  it("is null whenever TZ is set, in the command's env or the process's (ICU reads the process's)", () => {
    expect(localZoneSource({ TZ: "UTC" })).toBeNull();
    expect(localZoneSource({ TZ: "" })).toBeNull();
    process.env.TZ = "Europe/Berlin";
    expect(localZoneSource({})).toBeNull();
  });

  it.runIf(linked)("names /etc/localtime's link and target, and ICU's versions", () => {
    const source = localZoneSource({});
    expect(JSON.parse(source!)).toEqual([
      fs.readlinkSync("/etc/localtime"),
      fs.realpathSync("/etc/localtime"),
      process.versions.icu ?? null,
      process.versions.tz ?? null,
    ]);
  });
});

describe("machineTimeZone", () => {
  const intlZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

  it("names the zone Intl names, TZ set or not", () => {
    expect(machineTimeZone({})).toBe(intlZone());
    process.env.TZ = "Asia/Kathmandu";
    expect(machineTimeZone({ TZ: "Asia/Kathmandu" })).toBe(intlZone()); // ICU's own spelling: Asia/Katmandu
    process.env.TZ = ""; // ICU's Etc/Unknown: UTC, as Node's Date keeps it
    expect(machineTimeZone({ TZ: "" })).toBe("UTC");
  });

  it.runIf(utcLinked)("names UTC without Intl where /etc/localtime links to zoneinfo's UTC (ICU's data never loaded for it)", () => {
    const formats = vi.spyOn(Intl, "DateTimeFormat");
    try {
      expect(machineTimeZone({})).toBe("UTC");
      expect(formats).not.toHaveBeenCalled();
    } finally {
      formats.mockRestore();
    }
    expect(intlZone()).toBe("UTC");
  });
});

describe("a run with TZ set to the empty string", () => {
  it("shows and reckons its times in UTC, as OpenClaw's Date does there, not a usage error (the shipped entry)", () => {
    const { stateDir } = copyState("files", "reset-chain");
    const env = { ...process.env, TZ: "", HOME: homeNotMade(), XDG_CACHE_HOME: tempDir("ocs-zone-empty-") };
    const json = spawnSync(process.execPath, [BIN, "timeline", "--json", "--state-dir", stateDir], { env, encoding: "utf8" });
    expect(json.stderr).toBe("");
    expect(json.status).toBe(0);
    expect((JSON.parse(json.stdout) as TimelineSummaryResult).timeZone).toBe("UTC");
    const text = spawnSync(process.execPath, [BIN, "history", "agent:main:telegram:direct:424242", "--state-dir", stateDir], {
      env,
      encoding: "utf8",
    });
    expect(text.status).toBe(0);
    expect(text.stderr).toContain("times in UTC");
    expect(text.stdout).toContain("user 2026-07-01 09:15:22\n"); // 09:15:22Z
  });
});

describe("the store-wide timeline with TZ unset", () => {
  it.runIf(linked)("derives once, hands the kept answer back after, and names the zone Intl gives", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const env = { HOME: homeNotMade(), XDG_CACHE_HOME: tempDir("ocs-zone-cache-"), XDG_STATE_HOME: tempDir("ocs-zone-state-") };
    let derived = 0;
    const run = async (index: boolean) => {
      const place = { env, cwd: "/" };
      const session = openStoreSession(place);
      try {
        const sel = index ? { stateDir } : { stateDir, index: false };
        const result = (await runTimeline(sel, {
          ...place,
          session: countingDerivations(session, () => derived++),
        })) as TimelineSummaryResult;
        return result;
      } finally {
        session.close();
      }
    };
    await pastRacyWindow();
    const first = await run(true);
    const second = await run(true);
    expect(derived).toBe(1);
    expect(second).toEqual(first);
    expect(second).toEqual(await run(false));
    expect(second.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});

/** The session, with each answer it derives (rather than hands back) counted. */
function countingDerivations(session: StoreSession, derived: () => void): StoreSession {
  return Object.assign(Object.create(session) as StoreSession, {
    answer: ((sel, what, compute) =>
      session.answer(sel, what, () => {
        derived();
        return compute();
      })) as StoreSession["answer"],
  });
}
