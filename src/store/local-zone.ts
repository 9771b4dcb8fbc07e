/**
 * What decides this machine's own time zone (core/format.ts resolveTimeZone's last resort), told
 * without Intl: Intl's first use loads ICU's data, 15–30 ms of a run that reuses a kept answer
 * and never formats a time. With TZ unset, ICU takes the zone from the path /etc/localtime links to
 * (the part after "/zoneinfo/", on Linux and macOS alike), so that link, its target and ICU's own
 * version decide it. Null where something else may: TZ set (the caller resolves it, "UTC" without
 * Intl), /etc/localtime a plain file or missing (ICU then reads its content), Windows.
 */
import fs from "node:fs";

const LOCALTIME = "/etc/localtime";

export function localZoneSource(env: NodeJS.ProcessEnv): string | null {
  // ICU reads this process's own TZ, which a command's env (a test's, serve's) may not hold.
  if (env.TZ !== undefined || process.env.TZ !== undefined || process.platform === "win32") return null;
  try {
    const link = fs.readlinkSync(LOCALTIME); // EINVAL when it is no symlink
    const target = fs.realpathSync(LOCALTIME);
    if (!link.includes("/zoneinfo/") && !target.includes("/zoneinfo/")) return null;
    return JSON.stringify([link, target, process.versions.icu ?? null, process.versions.tz ?? null]);
  } catch {
    return null;
  }
}
