/**
 * What every request to `serve` must pass before anything is read, as one pure rule: the Host
 * header names the loopback address and port the server listens on (DNS rebinding), a browser's
 * Origin and Sec-Fetch-Site say the request comes from the viewer itself (or was typed), the
 * method only reads (GET, HEAD), and the path starts with the server's random token.
 */
import { timingSafeEqual } from "node:crypto";

/** The only names the server answers to. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/** The addresses `serve` may listen on: nothing but the loopback interface. */
export const LOOPBACK_ADDRESSES = ["127.0.0.1", "::1"] as const;

/** True for an address a listener may bind: 127.0.0.1 or ::1, never a wildcard or another interface. */
export function isLoopbackAddress(address: string): boolean {
  return (LOOPBACK_ADDRESSES as readonly string[]).includes(address);
}

export interface GateRequest {
  method: string | undefined;
  /** The raw request target (`/token/key?k=…`). */
  url: string | undefined;
  host: string | undefined;
  origin?: string | undefined;
  secFetchSite?: string | undefined;
  secFetchMode?: string | undefined;
}

export interface Gate {
  token: string;
  port: number;
}

export type GateVerdict =
  | { ok: true; route: string; query: URLSearchParams; head: boolean }
  | { ok: false; status: 400 | 403 | 404 | 405 | 414; reason: string };

/** The longest request target read: a viewer URL is short; anything longer is refused unread. */
const MAX_URL = 8 * 1024;

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Host must be one of the loopback names with the server's port (a rebound DNS name is refused). */
export function allowedHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.some((n) => h === `${n}:${port}`);
}

/** The gate: the first rule a request breaks, or the route it asks for. */
export function gate(req: GateRequest, g: Gate): GateVerdict {
  if (!allowedHost(req.host, g.port)) return { ok: false, status: 403, reason: "this server answers only to its loopback address" };
  if (req.origin !== undefined && !allowedHost(req.origin.replace(/^http:\/\//i, ""), g.port))
    return { ok: false, status: 403, reason: "requests from other origins are refused" };
  // Another site may link to the viewer (a top-level navigation, harmless without the token) but
  // may not load anything of it into its own page.
  const crossSite = req.secFetchSite !== undefined && req.secFetchSite !== "same-origin" && req.secFetchSite !== "none";
  if (crossSite && req.secFetchMode !== "navigate") return { ok: false, status: 403, reason: "requests from other sites are refused" };
  if (req.method !== "GET" && req.method !== "HEAD") return { ok: false, status: 405, reason: "the viewer only reads: GET and HEAD" };
  const url = req.url ?? "";
  if (url.length > MAX_URL) return { ok: false, status: 414, reason: "request target too long" };
  if (!url.startsWith("/")) return { ok: false, status: 400, reason: "bad request target" };
  let parsed: URL;
  try {
    parsed = new URL(url, "http://127.0.0.1");
  } catch {
    return { ok: false, status: 400, reason: "bad request target" };
  }
  const [, first = "", ...rest] = parsed.pathname.split("/");
  if (!sameToken(first, g.token)) return { ok: false, status: 403, reason: "wrong or missing token: use the URL serve printed" };
  return { ok: true, route: `/${rest.join("/")}`, query: parsed.searchParams, head: req.method === "HEAD" };
}
