/** The shipped entry (bin → dist bundle, rebuilt by test/helpers/global-setup.ts), run as users run it. */
import path from "node:path";
import { ROOT } from "./corpus.js";

export const BIN = path.join(ROOT, "bin/openclaw-sessions.js");

/** A preload that writes the process's peak RSS (KiB) to $OCS_RSS_FILE on exit. */
export const RSS_PROBE = `data:text/javascript,import fs from "node:fs"; const out = process.env.OCS_RSS_FILE; if (out) process.on("exit", () => fs.writeFileSync(out, String(process.resourceUsage().maxRSS)));`;
