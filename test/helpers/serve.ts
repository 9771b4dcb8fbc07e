/**
 * The viewer in-process, on a store the test names, for tests that talk to it over HTTP or drive
 * a browser at it: the same server and routes `serve` runs (src/cli/serve/), a random port, and
 * `close()` (`closeViewers` in the file's afterAll).
 */
import http from "node:http";
import { routes } from "../../src/cli/serve/routes.js";
import { startServer, type RunningServer } from "../../src/cli/serve/server.js";
import type { StoreSelection } from "../../src/store/index.js";
import { SnapshotPool } from "../../src/store/sqlite/snapshots.js";
import { homeNotMade } from "./temp.js";

const running: RunningServer[] = [];

export async function startViewer(selection: StoreSelection, env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  // SQLite copies kept across requests, as `serve` keeps them (closed with the server).
  const snapshots = new SnapshotPool();
  const started = await startServer({
    port: 0,
    route: routes({
      selection,
      env: { HOME: homeNotMade(), XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, ...env },
      cwd: process.cwd(),
      tz: "UTC",
      snapshots,
    }),
    // A page that failed unexpectedly answers 500, which the test sees; its cause goes to the log.
    onError: (err) => console.error(err),
  });
  const server = { ...started, close: () => started.close().then(() => snapshots.close()) };
  running.push(server);
  return server;
}

export async function closeViewers(): Promise<void> {
  await Promise.all(running.splice(0).map((s) => s.close()));
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw request (any method, any Host header), to the IPv4 or IPv6 loopback address. */
export function request(
  port: number,
  target: string,
  opts: { method?: string; headers?: Record<string, string>; host?: "127.0.0.1" | "::1" } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: opts.host ?? "127.0.0.1", port, path: target, method: opts.method ?? "GET", headers: opts.headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
