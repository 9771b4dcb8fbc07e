/**
 * The exported HTML in a real browser (Debian's `chromium`, headless): every message of the
 * --archived history is in the rendered page, user/assistant text is visible as loaded, folded
 * tool output becomes visible when its <details> opens. Leaves a screenshot in .screenshots/.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { prepareExport, writeExport } from "../../src/commands/export.js";
import { EXPORT_REPORTERS, exportText } from "../../src/render/export-reporters.js";
import { segmentsOf } from "../../src/core/segments.js";
import { projectHistory } from "../../src/core/transcript/history.js";
import { ROOT, scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

const CHROMIUM = "/usr/bin/chromium";
const run = promisify(execFile);
const KEY = "agent:main:telegram:direct:424242";
const STATE = path.join(scenarioDir("files", "reset-chain"), "state");
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the headless-browser export check: ${CHROMIUM} is absent (apt-get install -y chromium)`);

function chromiumArgs(profile: string): string[] {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
  ];
}

/** The harness loads the export in an iframe and writes what a reader sees into #result. */
function harness(expected: Array<{ text: string; tool: boolean }>): string {
  return `<!doctype html><meta charset="utf-8"><iframe id="f" src="export.html" style="width:1000px;height:800px"></iframe><pre id="result">pending</pre>
<script>
const expected = ${JSON.stringify(expected).replace(/</g, "\\u003c")};
const norm = (s) => s.replace(/\\s+/g, " ").trim();
document.getElementById("f").addEventListener("load", () => {
  const doc = document.getElementById("f").contentDocument;
  const present = norm(doc.body.textContent);
  const before = norm(doc.body.innerText);
  const details = [...doc.querySelectorAll("details")];
  details.forEach((d) => { d.open = true; });
  const after = norm(doc.body.innerText);
  const r = {
    details: details.length,
    opened: details.filter((d) => d.open).length,
    missing: expected.filter((e) => !present.includes(norm(e.text))).map((e) => e.text),
    hiddenBefore: expected.filter((e) => !before.includes(norm(e.text))).map((e) => e.text),
    visibleToolBefore: expected.filter((e) => e.tool && before.includes(norm(e.text))).map((e) => e.text),
    hiddenAfter: expected.filter((e) => !after.includes(norm(e.text))).map((e) => e.text),
    title: doc.title,
  };
  document.getElementById("result").textContent = JSON.stringify(r);
});
</script>`;
}

describe.skipIf(!hasChromium)("export HTML in headless Chromium", () => {
  it("every message of the --archived history is there, and readable", async () => {
    const dir = tempDir("ocs-browser-");
    const profile = tempDir("ocs-chromium-profile-");
    const profile2 = tempDir("ocs-chromium-profile-");
    try {
      const ctx = storeContext({ env: { HOME: homeNotMade() }, cwd: process.cwd() });
      const { header } = await prepareExport({ stateDir: STATE, key: KEY, format: "html", archived: true }, ctx);
      let html = "";
      await writeExport(
        ctx.session,
        header,
        "html",
        { write: (c) => void (html += c.toString()) },
        exportText(EXPORT_REPORTERS.html("UTC")),
      );
      const exportFile = path.join(dir, "export.html");
      fs.writeFileSync(exportFile, html);

      const [index] = await ctx.session.indexes({ stateDir: STATE });
      const record = index!.sessions.find((s) => s.sessionKey === KEY)!;
      const expected: Array<{ text: string; tool: boolean }> = [];
      for (const seg of segmentsOf(record)) {
        for (const i of (await projectHistory(() => ctx.session.lines(seg.ref))).items) {
          if (i.text && !i.kind) expected.push({ text: i.text, tool: i.role === "toolResult" });
        }
      }
      fs.writeFileSync(path.join(dir, "harness.html"), harness(expected));

      // Chromium takes seconds to start here: the DOM check and the screenshot run side by side.
      const shots = path.join(ROOT, ".screenshots");
      fs.mkdirSync(shots, { recursive: true });
      const shot = path.join(shots, "export-reset-chain.png");
      const [{ stdout }] = await Promise.all([
        run(
          CHROMIUM,
          [
            ...chromiumArgs(profile),
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
            "--dump-dom",
            `file://${path.join(dir, "harness.html")}`,
          ],
          { timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
        ),
        run(
          CHROMIUM,
          [...chromiumArgs(profile2), "--hide-scrollbars", "--window-size=1100,2400", `--screenshot=${shot}`, `file://${exportFile}`],
          { timeout: 170_000 },
        ),
      ]);
      const m = /<pre id="result">([\s\S]*?)<\/pre>/.exec(stdout);
      expect(m, "harness result in the dumped DOM").not.toBeNull();
      const r = JSON.parse(
        m![1]!
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&amp;/g, "&"),
      );
      expect(r.title).toContain(KEY);
      expect(r.missing).toEqual([]);
      expect(r.hiddenAfter).toEqual([]);
      expect(r.details).toBeGreaterThan(0);
      expect(r.opened).toBe(r.details);
      // Folding works: tool output is hidden until opened, conversation text is visible at once.
      expect(r.visibleToolBefore).toEqual([]);
      expect(r.hiddenBefore.length).toBe(expected.filter((e) => e.tool).length);
      expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(profile, { recursive: true, force: true });
      fs.rmSync(profile2, { recursive: true, force: true });
    }
  });
});
