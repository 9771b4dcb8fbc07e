/**
 * What decides the machine's own zone, told without Intl: the store-wide timeline keys its kept
 * answer on it, so a warm run never loads ICU, and the answer it hands back names the zone Intl gives.
 */
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runTimeline, type TimelineSummaryResult } from "../../src/commands/timeline.js";
import { localZoneSource } from "../../src/store/local-zone.js";
import type { StoreSession } from "../../src/store/index.js";
import { openStoreSession } from "../../src/store/session.js";
import { copyState } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

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
