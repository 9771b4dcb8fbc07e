/**
 * The RSS probe the hostile-input test bounds commands with: it must count the measured program's
 * own pages, not the spawning process's. Linux carries a forked copy's peak across exec into
 * maxRSS, and CI once saw every command of a tiny store "peak" at its 216 MB test worker's size.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { RSS_PROBE } from "./built-cli.js";
import { tempDir } from "./temp.js";

it.runIf(process.platform === "linux")("reports a child's own peak when its parent holds 300 MB", () => {
  const out = path.join(tempDir("ocs-rss-probe-"), "rss");
  // A parent that touches 300 MB, then spawns `node -e 0` with the probe (the test worker stays small).
  const parent = `
    const big = Buffer.alloc(300 * 1024 * 1024, 1);
    require("node:child_process").spawnSync(process.execPath, ["--import", process.env.PROBE, "-e", "0"], { stdio: "inherit" });
    if (big[0] !== 1) process.exit(9);`;
  const r = spawnSync(process.execPath, ["-e", parent], {
    env: { ...process.env, PROBE: RSS_PROBE, OCS_RSS_FILE: out },
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  const mb = Number(fs.readFileSync(out, "utf8")) / 1024;
  // `node -e 0` peaks at 40–60 MB; the parent's 300 MB must not show.
  expect(mb).toBeGreaterThan(10);
  expect(mb).toBeLessThan(150);
});
