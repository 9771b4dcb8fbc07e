/**
 * This machine's own time zone (core/format.ts resolveTimeZone's last resort), and what decides it,
 * told without Intl where that can be: Intl's first use maps ICU's data (6 MB) and takes 15–30 ms
 * of a run that reuses a kept answer or never formats a time. With TZ unset, ICU takes the zone from
 * the path /etc/localtime links to (the part after the first "/zoneinfo/", on Linux and macOS
 * alike), so that link, its target and ICU's own version decide it.
 */
import fs from "node:fs";
import { resolveTimeZone } from "../core/format.js";
import { localTimeZone } from "../core/timeline/tz.js";

const LOCALTIME = "/etc/localtime";
const ZONEINFO = "/zoneinfo/";

/**
 * What decides the machine's zone, for a kept answer's question: the link, its target and ICU's
 * versions. Null where something else may: TZ set (the caller resolves it, "UTC" without Intl),
 * /etc/localtime a plain file or missing (ICU then reads its content), Windows.
 */
export function localZoneSource(env: NodeJS.ProcessEnv): string | null {
  const link = localtimeLink(env);
  return link === null ? null : JSON.stringify([link.link, link.target, process.versions.icu ?? null, process.versions.tz ?? null]);
}

/**
 * This machine's own zone, as Intl names it (core/timeline/tz.ts localTimeZone), but "UTC" without
 * Intl where /etc/localtime links to zoneinfo's UTC or Etc/UTC (a server's or a container's usual
 * zone): V8 names both "UTC", and ICU's data, loaded for nothing then, is 6 MB more peak RSS.
 */
export function machineTimeZone(env: NodeJS.ProcessEnv): string {
  const link = localtimeLink(env)?.link ?? "";
  const at = link.indexOf(ZONEINFO);
  return at >= 0 && UTC_LINKS.has(link.slice(at + ZONEINFO.length)) ? "UTC" : localTimeZone();
}

/** The zone to show times in (resolveTimeZone), this machine's told by machineTimeZone. */
export function resolveZone(tz: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolveTimeZone(tz, env, () => machineTimeZone(env));
}

/** The zoneinfo names ICU takes from the link that V8 names "UTC" (it canonicalizes Etc/UTC so). */
const UTC_LINKS = new Set(["UTC", "Etc/UTC"]);

/** /etc/localtime's link and its target, where the link decides ICU's zone (above); else null. */
function localtimeLink(env: NodeJS.ProcessEnv): { link: string; target: string } | null {
  // ICU reads this process's own TZ, which a command's env (a test's, serve's) may not hold.
  if (env.TZ !== undefined || process.env.TZ !== undefined || process.platform === "win32") return null;
  try {
    const link = fs.readlinkSync(LOCALTIME); // EINVAL when it is no symlink
    const target = fs.realpathSync(LOCALTIME);
    if (!link.includes(ZONEINFO) && !target.includes(ZONEINFO)) return null;
    return { link, target };
  } catch {
    return null;
  }
}
