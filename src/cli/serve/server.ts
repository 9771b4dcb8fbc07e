/**
 * The viewer's HTTP server: plain `node:http`, listening on the loopback interface only (127.0.0.1
 * and, where the machine has it, ::1, on one port), a random token in every URL, the request gate
 * (core/serve-gate.ts) before anything is read, and the same strict headers on every answer: a CSP
 * that allows nothing but this server's own stylesheet and icon (no script at all), no caching of
 * private text, no framing, no referrer, no CORS header. Each request reads the store through a
 * fresh store session (routes.ts), so a store that changes while the server runs is shown as it is
 * now, at the cost the index makes small.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gate, isLoopbackAddress, LOOPBACK_ADDRESSES } from "../../core/serve-gate.js";

export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

/** What a route answers. `body` may be streamed (an export) through `stream`. */
export interface Answer {
  status: number;
  type: string;
  body?: string;
  headers?: Record<string, string>;
  /** Writes the body itself (a download), after the head was sent. */
  stream?: (write: (chunk: string | Buffer) => Promise<void>) => Promise<void>;
  /**
   * Work the reader need not wait for (the request's store session writing what it learned to the
   * index): run once the answer has left, whether it was sent whole or its reader went away.
   */
  after?: () => void;
}

export type Route = (route: string, query: URLSearchParams, base: string) => Promise<Answer>;

export interface ServeOptions {
  /** 0: a random free port. */
  port: number;
  route: Route;
  /** A fixed token (tests); default 24 random bytes. */
  token?: string;
  /** Where to report a request that failed after its head was sent. */
  onError?: (err: unknown) => void;
}

export interface RunningServer {
  port: number;
  token: string;
  /** The URL to open: http://127.0.0.1:<port>/<token>/ */
  url: string;
  /** The addresses actually listened on. */
  addresses: string[];
  close(): Promise<void>;
}

function plain(status: number, text: string): Answer {
  return { status, type: "text/plain; charset=utf-8", body: `${text}\n` };
}

/** The reader of a streamed answer went away (or asked with HEAD): the stream stops, nothing is wrong. */
class StreamStopped extends Error {}

async function send(res: http.ServerResponse, a: Answer, head: boolean): Promise<void> {
  try {
    await sendAnswer(res, a, head);
    await ended(res);
  } finally {
    a.after?.();
  }
}

/** The answer has been handed to the socket, or the socket is gone. */
function ended(res: http.ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once("finish", resolve);
    res.once("close", resolve);
  });
}

async function sendAnswer(res: http.ServerResponse, a: Answer, head: boolean): Promise<void> {
  res.writeHead(a.status, { ...SECURITY_HEADERS, "Content-Type": a.type, ...(a.headers ?? {}) });
  if (!a.stream) {
    res.end(head ? undefined : (a.body ?? ""));
    return;
  }
  const write = (chunk: string | Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (head || res.destroyed) return reject(new StreamStopped());
      if (res.write(chunk)) resolve();
      else res.once("drain", resolve);
    });
  // A stream is always run, so what it holds is released when it ends.
  try {
    await a.stream(write);
  } catch (err) {
    if (!(err instanceof StreamStopped)) throw err;
  }
  res.end();
}

/**
 * The requests still being answered (or still closing their store session): the server's close
 * waits for them, so what they hold (the SQLite snapshots of `serve`'s pool) outlives their use.
 */
type InFlight = Set<Promise<void>>;

function handler(token: string, port: () => number, opts: ServeOptions, inFlight: InFlight): http.RequestListener {
  return (req, res) => {
    const verdict = gate(
      {
        method: req.method,
        url: req.url,
        host: req.headers.host,
        origin: req.headers.origin,
        secFetchSite: req.headers["sec-fetch-site"] as string | undefined,
        secFetchMode: req.headers["sec-fetch-mode"] as string | undefined,
      },
      { token, port: port() },
    );
    if (!verdict.ok) {
      const a = plain(verdict.status, verdict.reason);
      if (verdict.status === 405) a.headers = { Allow: "GET, HEAD" };
      void send(res, a, req.method === "HEAD");
      return;
    }
    const answered = opts
      .route(verdict.route, verdict.query, `/${token}/`)
      .then((a) => send(res, a, verdict.head))
      .catch((err) => {
        opts.onError?.(err);
        if (!res.headersSent) void send(res, plain(500, "internal error: see the terminal serve runs in"), verdict.head);
        else res.destroy();
      })
      .finally(() => inFlight.delete(answered));
    inFlight.add(answered);
  };
}

function listenOn(server: http.Server, host: string, port: number): Promise<number> {
  if (!isLoopbackAddress(host)) throw new Error(`internal: serve listens on the loopback interface only, not ${host}`);
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen({ host, port, exclusive: true }, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(s: http.Server): Promise<void> {
  return new Promise((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });
}

/** IPv6 missing on this machine: serve on 127.0.0.1 alone. */
const NO_IPV6 = new Set(["EADDRNOTAVAIL", "EAFNOSUPPORT", "EINVAL"]);

/**
 * Listen on 127.0.0.1 and ::1 at one port (a random one unless `port` is given; a random port
 * taken on ::1 by something else is tried again). Nothing else can be bound: there is no host option.
 */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? crypto.randomBytes(24).toString("base64url");
  const inFlight: InFlight = new Set();
  for (let attempt = 0; ; attempt++) {
    let bound = 0;
    const listen = handler(token, () => bound, opts, inFlight);
    const v4 = http.createServer(listen);
    bound = await listenOn(v4, LOOPBACK_ADDRESSES[0], opts.port);
    const servers = [v4];
    try {
      const v6 = http.createServer(listen);
      await listenOn(v6, LOOPBACK_ADDRESSES[1], bound);
      servers.push(v6);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (code === "EADDRINUSE" && opts.port === 0 && attempt < 5) {
        await closeServer(v4);
        continue;
      }
      if (!NO_IPV6.has(code)) {
        await closeServer(v4);
        throw err;
      }
    }
    return {
      port: bound,
      token,
      url: `http://127.0.0.1:${bound}/${token}/`,
      addresses: servers.map((s) => (s.address() as AddressInfo).address),
      close: async () => {
        await Promise.all(servers.map(closeServer));
        await Promise.all([...inFlight]);
      },
    };
  }
}
