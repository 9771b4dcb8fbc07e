/** The shipped entry (bin → dist bundle, rebuilt by test/helpers/global-setup.ts), run as users run it. */
import path from "node:path";
import { ROOT } from "./corpus.js";

export const BIN = path.join(ROOT, "bin/openclaw-sessions.js");

/**
 * A preload that writes the peak RSS (KiB) to $OCS_RSS_FILE on exit. The figure is VmHWM: Linux
 * carries the forked copy's peak across exec into maxRSS, so a child of a 216 MB test worker
 * reported 216 MB for `ls` of a tiny store; VmHWM counts only the program's own pages.
 */
export const RSS_PROBE = `data:text/javascript,import fs from "node:fs"; const out = process.env.OCS_RSS_FILE; const peakKb = () => { try { return Number(/VmHWM:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]); } catch { return process.resourceUsage().maxRSS; } }; if (out) process.on("exit", () => fs.writeFileSync(out, String(peakKb())));`;
