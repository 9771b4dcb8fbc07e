/**
 * `serve` over HTTP, without a browser: the gate (token, Host, Origin, Sec-Fetch-Site, methods),
 * the headers of every answer, the loopback-only listeners, every page answering on copies of both
 * eras while the store stays byte-identical (the viewer never writes, restore panel included), and
 * the shipped CLI: the URL printed once, a clean stop on SIGINT and SIGTERM, `open <key>` starting
 * the system opener, and the options that cannot be given (a bind address, a port out of range).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Answer, startServer } from "../../src/cli/serve/server.js";
import { BIN } from "../helpers/built-cli.js";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";
import { closeViewers, request, startViewer } from "../helpers/serve.js";
import { appendUserMessages, openSqliteForWriting } from "../helpers/sqlite-writer.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";

afterAll(closeViewers);

const KEY = "agent:main:telegram:direct:424242";

describe("the gate", () => {
  it("token, Host, Origin, Sec-Fetch-Site and method, before anything is read", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const host = { Host: `127.0.0.1:${v.port}` };
    const ok = await request(v.port, `/${v.token}/`, { headers: host });
    expect(ok.status).toBe(200);
    expect((await request(v.port, `/${v.token}/`, { headers: { Host: `localhost:${v.port}` } })).status).toBe(200);
    // Wrong or missing token.
    expect((await request(v.port, `/${"x".repeat(v.token.length)}/`, { headers: host })).status).toBe(403);
    expect((await request(v.port, "/", { headers: host })).status).toBe(403);
    expect((await request(v.port, `/${v.token.slice(1)}/key?k=${KEY}`, { headers: host })).status).toBe(403);
    // DNS rebinding: another name, or another port, in Host.
    expect((await request(v.port, `/${v.token}/`, { headers: { Host: "evil.example" } })).status).toBe(403);
    expect((await request(v.port, `/${v.token}/`, { headers: { Host: `evil.example:${v.port}` } })).status).toBe(403);
    expect((await request(v.port, `/${v.token}/`, { headers: { Host: `127.0.0.1:${v.port + 1}` } })).status).toBe(403);
    // Another origin's page may not load or fetch anything of the viewer (a link to it is a navigation).
    expect((await request(v.port, `/${v.token}/`, { headers: { ...host, Origin: "http://evil.example" } })).status).toBe(403);
    expect(
      (await request(v.port, `/${v.token}/`, { headers: { ...host, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors" } })).status,
    ).toBe(403);
    expect(
      (await request(v.port, `/${v.token}/`, { headers: { ...host, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate" } }))
        .status,
    ).toBe(200);
    // Only GET and HEAD, whatever the token.
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const r = await request(v.port, `/${v.token}/`, { method, headers: host });
      expect(r.status, method).toBe(405);
      expect(r.headers.allow).toBe("GET, HEAD");
    }
    const head = await request(v.port, `/${v.token}/`, { method: "HEAD", headers: host });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    const download = await request(v.port, `/${v.token}/export?k=${KEY}&view=all&format=html`, { method: "HEAD", headers: host });
    expect([download.status, download.headers["content-disposition"], download.body]).toEqual([
      200,
      'attachment; filename="agent_main_telegram_direct_424242-all.html"',
      "",
    ]);
  });

  it("every answer carries the strict headers, and no CORS header", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    for (const target of [`/${v.token}/`, `/${v.token}/style.css`, "/nope", `/${v.token}/no-such-page`]) {
      const r = await request(v.port, target, { headers: { Host: `127.0.0.1:${v.port}`, Origin: `http://127.0.0.1:${v.port}` } });
      expect(r.headers["content-security-policy"], target).toBe(
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers["cache-control"]).toBe("no-store");
      expect(r.headers["referrer-policy"]).toBe("no-referrer");
      expect(r.headers["x-frame-options"]).toBe("DENY");
      expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    }
  });

  it("listens on the loopback addresses only, one port for both", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    expect(v.addresses.length).toBeGreaterThan(0);
    for (const a of v.addresses) expect(["127.0.0.1", "::1"]).toContain(a);
    expect(v.url).toBe(`http://127.0.0.1:${v.port}/${v.token}/`);
    expect(v.token.length).toBeGreaterThanOrEqual(32);
    if (v.addresses.includes("::1")) {
      const r = await request(v.port, `/${v.token}/`, { host: "::1", headers: { Host: `[::1]:${v.port}` } });
      expect(r.status).toBe(200);
    }
  });
});

describe("an answer's after-work and the stop", () => {
  /** A server whose one route answers what `answer` gives; every `after` it runs is recorded. */
  async function serverAnswering(answer: () => Promise<Answer>) {
    const s = await startServer({ port: 0, route: () => answer(), onError: (err) => console.error(err) });
    const get = (method = "GET") => request(s.port, `/${s.token}/`, { method, headers: { Host: `127.0.0.1:${s.port}` } });
    return { s, get };
  }

  it("runs once each answer has left: a page, a HEAD, a download, and a download its reader left", async () => {
    const ran: string[] = [];
    let next: Answer = { status: 200, type: "text/plain", body: "page", after: () => ran.push("page") };
    const { s, get } = await serverAnswering(async () => next);
    expect((await get()).body).toBe("page");
    next = { status: 200, type: "text/plain", body: "page", after: () => ran.push("head") };
    expect((await get("HEAD")).body).toBe("");
    next = {
      status: 200,
      type: "text/plain",
      stream: async (write) => {
        await write("a");
        await write("b");
      },
      after: () => ran.push("download"),
    };
    expect((await get()).body).toBe("ab");
    // A reader that goes away mid-download: the stream stops, its after-work still runs.
    let left!: () => void;
    const gone = new Promise<void>((resolve) => (left = resolve));
    next = {
      status: 200,
      type: "text/plain",
      stream: async (write) => {
        await write("x".repeat(64 * 1024));
        await gone;
        for (let i = 0; i < 100; i++) await write("x".repeat(64 * 1024));
      },
      after: () => ran.push("left"),
    };
    await new Promise<void>((resolve) => {
      const req = http.get({
        host: "127.0.0.1",
        port: s.port,
        path: `/${s.token}/`,
        headers: { Host: `127.0.0.1:${s.port}` },
        agent: false,
      });
      req.on("response", (res) =>
        res.once("data", () => {
          req.destroy();
          setTimeout(() => {
            left();
            resolve();
          }, 50);
        }),
      );
      req.on("error", () => undefined);
    });
    await s.close();
    expect(ran).toEqual(["page", "head", "download", "left"]);
  });

  it("the stop waits for an answer still being made, and for its after-work", async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const ran: string[] = [];
    const { s, get } = await serverAnswering(async () => {
      ran.push("asked");
      await held;
      ran.push("answered");
      return { status: 200, type: "text/plain", body: "late", after: () => ran.push("after") };
    });
    const reply = get().catch(() => null); // the stop ends the connection
    while (!ran.includes("asked")) await new Promise((r) => setTimeout(r, 5));
    let stopped = false;
    const stop = s.close().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    finish();
    await stop;
    await reply;
    expect(ran).toEqual(["asked", "answered", "after"]);
  });
});

/** Every page of a store: its overview, check, each key's page in both views, search, export, restore plans. */
async function everyPage(port: number, token: string, keys: string[], restorable: string[]): Promise<Array<[string, number]>> {
  const targets = [
    `/${token}/`,
    `/${token}/check`,
    `/${token}/search?q=the`,
    `/${token}/search?q=(&regex=1&s=1`,
    `/${token}/?page=last&sort=size`,
  ];
  for (const k of keys) {
    const q = `k=${encodeURIComponent(k)}`;
    targets.push(`/${token}/key?${q}`, `/${token}/key?${q}&view=all&page=last`);
    if (restorable.includes(k)) targets.push(`/${token}/restore?${q}&segment=1`);
    for (const format of ["md", "html", "jsonl"]) targets.push(`/${token}/export?${q}&view=all&format=${format}`);
  }
  const out: Array<[string, number]> = [];
  for (const t of targets) out.push([t, (await request(port, t, { headers: { Host: `127.0.0.1:${port}` } })).status]);
  return out;
}

describe("pages, both eras", () => {
  it.each([
    ["files", "reset-chain", ["agent:main:main", KEY], [KEY]],
    [
      "sqlite",
      "sqlite-reset",
      ["agent:main:main", "agent:main:telegram:direct:5550002"],
      ["agent:main:main", "agent:main:telegram:direct:5550002"],
    ],
  ] as const)("%s/%s: every page answers, and the store stays byte-identical", async (era, name, keys, restorable) => {
    const { stateDir } = copyState(era, name);
    const before = hashTree(stateDir);
    const state = tempDir("ocs-serve-state-");
    const v = await startViewer({ stateDir }, { XDG_STATE_HOME: state });
    const statuses = await everyPage(v.port, v.token, [...keys], [...restorable]);
    for (const [target, status] of statuses) expect([target, status]).toEqual([target, target.includes("regex=1") ? 400 : 200]);
    expect(hashTree(stateDir)).toEqual(before);
    // The restore panel only planned: no manifest or backup was written anywhere.
    expect(fs.readdirSync(state)).toEqual([]);
  });

  it("a store that changes while the server runs is shown as it is now", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const get = async (t: string) => (await request(v.port, `/${v.token}/${t}`, { headers: { Host: `127.0.0.1:${v.port}` } })).body;
    const page = `key?k=${encodeURIComponent("agent:main:main")}&agent=main`;
    expect(await get(page)).not.toContain("a message written while the viewer ran");
    // OpenClaw appends a turn to the active transcript, same second, same size class.
    const file = path.join(stateDir, "agents/main/sessions/7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl");
    const line = {
      type: "message",
      id: "late1",
      parentId: "73a3a4ae",
      timestamp: "2026-07-01T09:15:30.000Z",
      message: { role: "user", content: [{ type: "text", text: "a message written while the viewer ran" }], timestamp: 1782897330000 },
    };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    const after = await get(page);
    expect(after).toContain("a message written while the viewer ran");
    expect(await get("search?q=while+the+viewer+ran")).toContain("agent:main:main</a> · segment 1 · L4");
  });

  it("a big transcript's first pass, kept between requests, is never staler than the file: appended, or replaced at the same size", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const file = path.join(stateDir, "agents/main/sessions/7f5b078a-6f38-4a26-b32a-bf79b3b9728c.jsonl");
    // Over 4 MiB, so its first pass is kept (store/scan-memo.ts).
    const turn = (i: number, text: string) => ({
      type: "message",
      id: `big${i}`,
      parentId: i === 0 ? "73a3a4ae" : `big${i - 1}`,
      timestamp: "2026-07-01T09:16:00.000Z",
      message: { role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }], timestamp: 1782897360000 },
    });
    const filler = Array.from({ length: 4000 }, (_, i) =>
      JSON.stringify(turn(i, `filler ${String(i).padStart(4, "0")} ${"x".repeat(1100)}`)),
    );
    fs.appendFileSync(file, `${filler.join("\n")}\n`);
    const v = await startViewer({ stateDir });
    const get = async (t: string) => (await request(v.port, `/${v.token}/${t}`, { headers: { Host: `127.0.0.1:${v.port}` } })).body;
    const last = `key?k=${encodeURIComponent("agent:main:main")}&agent=main&page=last`;
    expect(await get(last)).toContain("filler 3999");
    fs.appendFileSync(file, `${JSON.stringify(turn(4000, "appended while the viewer ran"))}\n`);
    expect(await get(last)).toContain("appended while the viewer ran");
    // The same bytes but one word, renamed over the file: same size, another inode.
    const text = fs.readFileSync(file, "utf8");
    expect(text.match(/appended while the viewer ran/g)).toHaveLength(1);
    const copy = `${file}.tmp`;
    fs.writeFileSync(copy, text.replace("appended while the viewer ran", "rewritten while the viewer ran"));
    fs.renameSync(copy, file);
    const rewritten = await get(last);
    expect(rewritten).toContain("rewritten while the viewer ran");
    expect(rewritten).not.toContain("appended while the viewer ran");
  });

  it("a big SQLite window's first pass and the database's copy, kept between requests, are never staler than the database", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-basic");
    const dbPath = path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite");
    const window = "c7594281-11d3-423c-ad78-d246c1fa4a82"; // agent:main:main's current window
    // OpenClaw's connection stays open: what it appends lives in the WAL, as while a Gateway runs.
    const writer = openSqliteForWriting(dbPath);
    const append = (texts: string[]) => appendUserMessages(writer, window, texts);
    try {
      // Over 4,096 lines, so its first pass is kept (store/scan-memo.ts).
      append(Array.from({ length: 4200 }, (_, i) => `filler ${String(i).padStart(4, "0")}`));
      // This viewer's copies of the database (other tests' viewers keep theirs until the file ends).
      const allCopies = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`openclaw-sessions-sqlite-${process.pid}-`));
      const others = new Set(allCopies());
      const copies = () => allCopies().filter((n) => !others.has(n));
      const v = await startViewer({ stateDir });
      const get = async (t: string) => (await request(v.port, `/${v.token}/${t}`, { headers: { Host: `127.0.0.1:${v.port}` } })).body;
      const last = `key?k=${encodeURIComponent("agent:main:main")}&agent=main&page=last`;
      expect(await get(last)).toContain("filler 4199");
      expect(copies()).toHaveLength(1);
      expect(await get(last)).toContain("filler 4199");
      expect(copies()).toHaveLength(1); // the same copy served the second request
      append(["appended while the viewer ran"]);
      expect(await get(last)).toContain("appended while the viewer ran");
      expect(copies()).toHaveLength(1); // a new copy, the old one removed
      await v.close();
      expect(copies()).toHaveLength(0);
    } finally {
      writer.close();
    }
  });

  it("a SQLite window no key holds is read by the name every contract gives it (<db>#<sessionId>), at its line", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-deleted");
    const v = await startViewer({ stateDir });
    const host = { Host: `127.0.0.1:${v.port}` };
    const window = `${path.join(stateDir, "agents/main/agent/openclaw-agent.sqlite")}#14ab3c58-d724-4aef-8f7c-1000d482e168`;
    const r = await request(v.port, `/${v.token}/transcript?p=${encodeURIComponent(window)}&al=2`, { headers: host });
    expect(r.status).toBe(303);
    expect(r.headers.location).toMatch(/page=1#L2$/);
    const page = await request(v.port, r.headers.location!, { headers: host });
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="L2"');
    expect(page.body).toContain("throwaway question");
  });

  it("the overview's figures per key are timeline's, whether the page or every key is read", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const row = async (q: string) => {
      const body = (await request(v.port, `/${v.token}/${q}`, { headers: { Host: `127.0.0.1:${v.port}` } })).body;
      const tr = body.split("<tr>").find((t) => t.includes(`>${KEY}</a>`)) ?? "";
      return [...tr.matchAll(/<td class="num">([^<]*)</g)].map((m) => m[1]);
    };
    // segments, resets, archives, size, tokens
    expect(await row("")).toEqual(["4", "3", "3", "5.1 KiB", "2,300"]);
    expect(await row("?sort=resets")).toEqual(await row(""));
    expect(await row("?has=resets&sort=key")).toEqual(await row(""));
  });

  it("a file that cannot be read (a FIFO among the archives) is named on the page, never waited on", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const fifo = path.join(stateDir, "agents/main/sessions/11111111-2222-4333-8444-555555555555.jsonl.reset.2026-07-01T09-20-00.000Z");
    execFileSync("mkfifo", [fifo]);
    const v = await startViewer({ stateDir });
    const r = await request(v.port, `/${v.token}/`, { headers: { Host: `127.0.0.1:${v.port}` } });
    expect(r.status).toBe(200);
    expect(r.body).toContain(`<p class="warn">cannot read ${fifo}: a FIFO`);
  });

  it("a key that does not exist is a 404 page, a bad parameter a 400 page", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const v = await startViewer({ stateDir });
    const get = (t: string) => request(v.port, `/${v.token}/${t}`, { headers: { Host: `127.0.0.1:${v.port}` } });
    const missing = await get("key?k=agent:main:nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("SESSION_NOT_FOUND");
    expect((await get("?sort=bogus")).status).toBe(400);
    expect((await get(`key?k=${KEY}&view=bogus`)).status).toBe(400);
    // A path outside the store is refused before it is looked at: no answer tells whether it exists.
    const outside = await get("transcript?p=/etc/passwd");
    const nowhere = await get("transcript?p=/etc/no-such-file-here");
    expect([outside.status, nowhere.status]).toEqual([400, 400]);
    expect(outside.body).toContain("FILE_OUTSIDE_STORE");
    expect(nowhere.body).toContain("FILE_OUTSIDE_STORE");
  });
});

/** The shipped CLI's serve, until its URL line. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: homeNotMade(), NO_COLOR: "1", XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!);
    });
    void exited.then(() => reject(new Error(`serve exited: ${stderr}`)));
  });
  return { child, url, exited, out: () => ({ stdout, stderr }) };
}

/** The URL the stand-in opener wrote, once it has written a whole line (no deadline: the runner's hang guard is the only one). */
async function opened(record: string): Promise<string> {
  for (;;) {
    const text = fs.existsSync(record) ? fs.readFileSync(record, "utf8") : "";
    if (text.endsWith("\n")) return text.trim();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the CLI", () => {
  it.each(["SIGINT", "SIGTERM"] as const)("prints the URL once and stops cleanly on %s (exit 0)", async (signal) => {
    const { stateDir } = copyState("sqlite", "sqlite-reset");
    const s = startCli(["serve", "--state-dir", stateDir]);
    const url = new URL(await s.url);
    expect(url.hostname).toBe("127.0.0.1");
    const page = await request(Number(url.port), url.pathname, { headers: { Host: url.host } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("agent:main:main");
    s.child.kill(signal);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.out().stdout.trim().split("\n")).toEqual([url.href]);
    expect(s.out().stderr).toContain(`stopped (${signal})`);
    // Its port is closed.
    await expect(request(Number(url.port), url.pathname, { headers: { Host: url.host } })).rejects.toThrow();
  });

  it("open <key> and serve --open start the system opener at the key's page and the overview; a misspelt key is exit 2 before anything starts", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const bin = tempDir("ocs-opener-");
    const record = path.join(bin, "opened");
    fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$1" > '${record}'\n`, { mode: 0o755 });
    const s = startCli(["open", KEY, "--state-dir", stateDir], { PATH: `${bin}:${process.env.PATH}` });
    const url = await s.url;
    expect(url).toContain(`/key?k=${encodeURIComponent(KEY)}&agent=main`);
    expect(await opened(record)).toBe(url);
    const u = new URL(url);
    const page = await request(Number(u.port), `${u.pathname}${u.search}`, { headers: { Host: u.host } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<svg class="timeline"');
    s.child.kill("SIGTERM");
    expect((await s.exited).code).toBe(0);

    // serve --open: the overview.
    fs.rmSync(record);
    const o = startCli(["serve", "--open", "--state-dir", stateDir], { PATH: `${bin}:${process.env.PATH}` });
    const overview = await o.url;
    expect(await opened(record)).toBe(overview);
    expect(new URL(overview).pathname).toMatch(/^\/[\w-]{32}\/$/);
    o.child.kill("SIGINT");
    expect((await o.exited).code).toBe(0);

    const bad = await cli(["open", "agent:main:telegrm:direct:424242", "--state-dir", stateDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("did you mean");
  });

  it("an opener that finds no browser (xdg-open's exit 3 on a machine without one) is one line; the server goes on", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const bin = tempDir("ocs-opener-");
    fs.writeFileSync(path.join(bin, "xdg-open"), "#!/bin/sh\necho 'xdg-open: no method available' >&2\nexit 3\n", { mode: 0o755 });
    const s = startCli(["open", KEY, "--state-dir", stateDir], { PATH: `${bin}:${process.env.PATH}` });
    const u = new URL(await s.url);
    while (!s.out().stderr.includes("could not open a browser")) await new Promise((r) => setTimeout(r, 20));
    expect(s.out().stderr).toContain("xdg-open could not open a browser (exit 3); open the URL above yourself");
    const page = await request(Number(u.port), `${u.pathname}${u.search}`, { headers: { Host: u.host } });
    expect(page.status).toBe(200);
    s.child.kill("SIGTERM");
    expect((await s.exited).code).toBe(0);
  });

  it("open <key> on a SQLite store copies the database once: the check before the start serves the first request, and the copy goes at the stop", async () => {
    const { stateDir } = copyState("sqlite", "sqlite-reset");
    const tmp = tempDir("ocs-serve-tmp-");
    const copies = () => fs.readdirSync(tmp).filter((n) => n.startsWith("openclaw-sessions-sqlite-"));
    const bin = tempDir("ocs-opener-");
    fs.writeFileSync(path.join(bin, "xdg-open"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const s = startCli(["open", "agent:main:main", "--state-dir", stateDir], { TMPDIR: tmp, PATH: `${bin}:${process.env.PATH}` });
    const u = new URL(await s.url);
    const atStart = copies();
    expect(atStart).toHaveLength(1);
    const page = await request(Number(u.port), `${u.pathname}${u.search}`, { headers: { Host: u.host } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<svg class="timeline"');
    expect(copies()).toEqual(atStart);
    s.child.kill("SIGTERM");
    expect((await s.exited).code).toBe(0);
    expect(copies()).toEqual([]);
  });

  it("no option binds another address; a port out of range is a usage error", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    for (const args of [
      ["--host", "0.0.0.0"],
      ["--bind", "0.0.0.0"],
      ["--port", "70000"],
      ["--port", "-1"],
    ]) {
      const r = await cli(["serve", "--state-dir", stateDir, ...args]);
      expect(r.code, args.join(" ")).toBe(2);
    }
    // A port something else holds: exit 3, nothing served.
    const taken = await startViewer({ stateDir });
    const busy = await cli(["serve", "--state-dir", stateDir, "--port", String(taken.port)]);
    expect(busy.code).toBe(3);
    expect(busy.stderr).toContain(`cannot listen on port ${taken.port}: in use`);
    expect(busy.stdout).toBe("");
    const help = await cli(["serve", "--help"]);
    expect(help.stdout).not.toMatch(/--host|--bind|--address/);
  });
});
