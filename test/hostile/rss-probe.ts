/** Preloaded into child CLIs by the hostile tests: writes the process's peak RSS (KiB) to $OCS_RSS_FILE on exit. */
import fs from "node:fs";

const out = process.env.OCS_RSS_FILE;
if (out) process.on("exit", () => fs.writeFileSync(out, String(process.resourceUsage().maxRSS)));
