/** What this machine's /etc/localtime says, for tests that hold only where it says so. */
import fs from "node:fs";

/** /etc/localtime links to zoneinfo's UTC or Etc/UTC (store/local-zone.ts takes the zone as UTC without Intl). */
export const utcLinked = (() => {
  try {
    return /\/zoneinfo\/(Etc\/)?UTC$/.test(fs.readlinkSync("/etc/localtime"));
  } catch {
    return false;
  }
})();
