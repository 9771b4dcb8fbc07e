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
import { homeNotMade, tempDir } from "../helpers/temp.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the serve browser tests: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const KEY = "agent:main:telegram:direct:424242";
const SHOTS = path.join(ROOT, ".screenshots");

let browser: Browser;

beforeAll(async () => {
  // Chromium's own temp files (.org.chromium.Chromium.*) go to a dir of this file's, removed with it.
  const env = { ...process.env, TMPDIR: tempDir("ocs-chromium-tmp-") };
  if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"], env });
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
    const ctx = storeContext({ env: { HOME: homeNotMade(), XDG_CACHE_HOME: process.env.XDG_CACHE_HOME }, cwd: process.cwd() });
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

  it("a compaction is drawn with its tokensBefore", async () => {
    const { stateDir } = copyState("files", "single-active");
    const v = await startViewer({ stateDir });
    const { page, bad } = await watchedPage(`http://127.0.0.1:${v.port}`);
    await page.goto(`${v.url}key?k=${encodeURIComponent("agent:main:main")}&agent=main`);
    expect(await svgCount(page, "g.compaction")).toBe(1);
    expect(await page.locator("svg.timeline g.compaction title").textContent()).toContain("48,231 tokens before");
    expect(await page.locator("svg.timeline g.compaction text").textContent()).toBe("48,231 tok");
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

/** Hostile text in every place a transcript or a store can put it. */
const HOSTILE = {
  script: "<script>alert(1)</script>",
  img: '<img src=x onerror="alert(2)">',
  link: '[click me](javascript:alert(3)) <a href="javascript:alert(4)">a link</a>',
  osc: "\u001b]8;;http://evil.example/\u0007osc link\u001b]8;;\u0007 \u001b[31mred\u001b[0m \u202Eevil bidi",
  frame: '<iframe src="http://evil.example/"></iframe><style>body{display:none}</style>',
};
const HOSTILE_KEY = 'agent:main:x"><img src=x onerror=alert(7)>';

/** reset-chain's agent:main:main with hostile messages appended, and a key whose name is hostile. */
function hostileStore(): string {
  const { stateDir } = copyState("files", "reset-chain");
  const sessions = path.join(stateDir, "agents/main/sessions");
  const file = path.join(sessions, "7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl");
  let parent = "73a3a4ae";
  const line = (id: string, message: Record<string, unknown>) => {
    const l = JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-07-01T09:16:00.000Z", message });
    parent = id;
    return `${l}\n`;
  };
  fs.appendFileSync(
    file,
    line("h1", { role: "user", content: [{ type: "text", text: `${HOSTILE.script} ${HOSTILE.img}` }] }) +
      line("h2", {
        role: "assistant",
        content: [
          { type: "thinking", thinking: HOSTILE.frame },
          { type: "text", text: `${HOSTILE.link} ${HOSTILE.osc}` },
          { type: "toolCall", id: "c1", name: "<b>exec</b>", arguments: { cmd: HOSTILE.script } },
        ],
      }) +
      line("h3", { role: "toolResult", toolCallId: "c1", toolName: "exec", content: [{ type: "text", text: HOSTILE.frame }] }),
  );
  const store = JSON.parse(fs.readFileSync(path.join(sessions, "sessions.json"), "utf8"));
  store[HOSTILE_KEY] = { ...store["agent:main:main"], sessionId: "7f5b078a-6f38-4a26-b32a-bf79b3b9728c" };
  fs.writeFileSync(path.join(sessions, "sessions.json"), JSON.stringify(store, null, 2));
  return stateDir;
}

/**
 * Every text node shown, with its colour and the background behind it: those under WCAG AA (4.5:1,
 * 3:1 for large text). Browser code, kept as text (the project's TypeScript has no DOM types).
 */
const CONTRAST_FAILURES = `(() => {
  const rgb = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p[3] ?? 1];
  };
  const lum = (c) => {
    const f = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c && c[3] > 0) return c; }
    return rgb(getComputedStyle(document.body).backgroundColor);
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || el.closest(".visually-hidden, title, desc, option")) continue;
    const svgText = el instanceof SVGElement;
    const fg = rgb(svgText ? style.fill : style.color);
    // SVG text on a segment's bar is read against the bar; other SVG text against the figure.
    const rect = el.classList.contains("seg-label") ? el.parentElement.querySelector("rect") : null;
    const bg = rect ? rgb(getComputedStyle(rect).fill) : background(svgText ? el.closest("figure") : el);
    if (!fg) continue;
    const size = Number.parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const r = ratio(fg, bg);
    if (r < (large ? 3 : 4.5)) out.push(r.toFixed(2) + ":1 " + JSON.stringify(n.textContent.trim().slice(0, 40)) + " (" + el.tagName.toLowerCase() + "." + (el.getAttribute("class") ?? "") + ")");
  }
  return out;
})()`;

/** What the DOM holds that a hostile text could have planted. */
const PLANTED = `(() => ({
  scripts: document.querySelectorAll("script").length,
  imgs: document.querySelectorAll("img").length,
  frames: document.querySelectorAll("iframe, object, embed").length,
  jsLinks: [...document.querySelectorAll("a")].filter((a) => !a.href.startsWith(location.origin)).map((a) => a.href),
  styles: document.querySelectorAll("style").length,
  bodyShown: getComputedStyle(document.body).display !== "none",
}))()`;

const FAINT = `(() => {
  const p = document.createElement("p");
  p.textContent = "too faint";
  p.style.color = "rgb(150, 150, 150)";
  p.style.background = "rgb(255, 255, 255)";
  document.querySelector("main").append(p);
})()`;

/** Opens every <details> (thinking, tool calls, tool results). */
const openAll = (page: Page) =>
  page.locator("details").evaluateAll((els) => {
    for (const e of els) (e as unknown as { open: boolean }).open = true;
  });

describe.skipIf(!hasChromium)("serve in Chromium: safety, paging, contrast", () => {
  it("a hostile transcript and key show as text: no dialog, no console error, no request leaves the origin", async () => {
    const stateDir = hostileStore();
    const v = await startViewer({ stateDir });
    const origin = `http://127.0.0.1:${v.port}`;
    const { page, bad, requests } = await watchedPage(origin);
    const pages = [
      v.url,
      `${v.url}key?k=${encodeURIComponent("agent:main:main")}&agent=main`,
      `${v.url}key?k=${encodeURIComponent(HOSTILE_KEY)}&agent=main&view=all`,
      `${v.url}search?q=${encodeURIComponent("<script>")}&tools=1&s=1&deleted=1`,
      `${v.url}search?q=alert&tools=1&s=1&deleted=1`,
    ];
    for (const url of pages) {
      await page.goto(url);
      // Open everything folded: thinking, tool calls, tool results.
      await openAll(page);
      const dom = await page.evaluate(PLANTED);
      expect(dom, url).toEqual({ scripts: 0, imgs: 0, frames: 0, jsLinks: [], styles: 0, bodyShown: true });
    }
    await page.goto(`${v.url}key?k=${encodeURIComponent("agent:main:main")}&agent=main`);
    await openAll(page);
    const text = (await page.locator("section.conversation").textContent()) ?? "";
    expect(await page.locator("details[open]").count()).toBe(await page.locator("details").count());
    expect(await page.getByText(HOSTILE.script).first().isVisible()).toBe(true);
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.img);
    expect(text).toContain("javascript:alert(3)");
    expect(text).toContain("^[]8;;http://evil.example/^Gosc link");
    expect(text).toContain("<U+202E>evil bidi");
    expect(text).toContain('<iframe src="http://evil.example/">');
    expect(text).not.toMatch(/[\u001b\u202e]/);
    await page.goto(v.url);
    expect(await page.locator("table.keys").textContent()).toContain(HOSTILE_KEY);
    expect(bad).toEqual([]);
    expect(requests.length).toBeGreaterThan(pages.length);
    await page.close();
  });

  it("the overview of a store too big for one page pages, filters and sorts on the server", async () => {
    const root = tempDir("ocs-serve-many-");
    const s = generateStore(root, { keys: 120, seed: 7 });
    const v = await startViewer({ stateDir: s.stateDir });
    const { page, bad } = await watchedPage(`http://127.0.0.1:${v.port}`);
    await page.goto(`${v.url}?size=50`);
    const rows = page.locator("table.keys tbody tr");
    expect(await rows.count()).toBe(50);
    expect(await page.locator("p.note", { hasText: "120 of 120 keys" }).count()).toBe(1);
    expect(await page.locator("nav.pager").first().textContent()).toContain("page 1 of 3");
    await page.locator("nav.pager").first().getByRole("link", { name: "next ›" }).click();
    expect(await page.locator("nav.pager").first().textContent()).toContain("page 2 of 3");
    expect(await rows.count()).toBe(50);
    await page.locator("nav.pager").first().getByRole("link", { name: "last »" }).click();
    expect(await rows.count()).toBe(20);
    await page.getByLabel("Channel").selectOption("telegram");
    await page.getByLabel("Sort by").selectOption("key");
    await page.getByRole("button", { name: "Apply" }).click();
    expect(await page.locator("p.note", { hasText: "40 of 120 keys" }).count()).toBe(1);
    const keys = await page.locator("table.keys tbody td.key").allInnerTexts();
    expect(keys.every((k) => k.startsWith("agent:main:telegram:"))).toBe(true);
    expect(keys).toEqual([...keys].sort());
    expect(bad).toEqual([]);
    await page.close();
  });

  it.each(["light", "dark"] as const)("every text meets WCAG AA contrast (%s mode)", async (scheme) => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const { page } = await watchedPage(`http://127.0.0.1:${v.port}`, scheme);
    const urls = [
      v.url,
      `${v.url}key?k=${encodeURIComponent(KEY)}&agent=main&view=all`,
      `${v.url}search?q=milk`,
      `${v.url}restore?k=${encodeURIComponent(KEY)}&segment=1`,
      `${v.url}check`,
    ];
    for (const url of urls) {
      await page.goto(url);
      await openAll(page);
      expect(await page.evaluate(CONTRAST_FAILURES), url).toEqual([]);
    }
    // The measure itself: a grey too light for its background is caught.
    await page.evaluate(FAINT);
    expect(await page.evaluate(CONTRAST_FAILURES)).toEqual([expect.stringContaining('"too faint"')]);
    await page.close();
  });
});
