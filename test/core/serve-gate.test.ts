import { describe, expect, it } from "vitest";
import { allowedHost, gate, isLoopbackAddress } from "../../src/core/serve-gate.js";

const G = { token: "t0k3n-abcdefghijklmnopqrstuvwxyz012345", port: 41234 };
const ok = { method: "GET", url: `/${G.token}/key?k=agent%3Amain%3Amain`, host: `127.0.0.1:${G.port}` };

describe("serve's gate", () => {
  it("passes the viewer's own requests, with the route and query after the token", () => {
    const v = gate(ok, G);
    expect(v).toMatchObject({ ok: true, route: "/key", head: false });
    expect(v.ok && v.query.get("k")).toBe("agent:main:main");
    expect(gate({ ...ok, url: `/${G.token}` }, G)).toMatchObject({ ok: true, route: "/" });
    expect(gate({ ...ok, method: "HEAD", host: `[::1]:${G.port}` }, G)).toMatchObject({ ok: true, head: true });
    expect(gate({ ...ok, secFetchSite: "same-origin", origin: `http://localhost:${G.port}` }, G)).toMatchObject({ ok: true });
    // A link another site shows, followed: a navigation, harmless without the token.
    expect(gate({ ...ok, secFetchSite: "cross-site", secFetchMode: "navigate" }, G)).toMatchObject({ ok: true });
  });

  it.each([
    ["no token", { url: "/" }, 403],
    ["another token", { url: `/${G.token.slice(0, -1)}x/` }, 403],
    ["a token prefix", { url: `/${G.token.slice(0, 10)}/` }, 403],
    ["a rebound name", { host: `evil.example:${G.port}` }, 403],
    ["no port", { host: "127.0.0.1" }, 403],
    ["another port", { host: `localhost:${G.port + 1}` }, 403],
    ["no Host", { host: undefined }, 403],
    ["another origin", { origin: "http://evil.example" }, 403],
    ["an opaque origin", { origin: "null" }, 403],
    ["another site's fetch", { secFetchSite: "cross-site", secFetchMode: "cors" }, 403],
    ["another port's page", { secFetchSite: "same-site", secFetchMode: "no-cors" }, 403],
    ["POST", { method: "POST" }, 405],
    ["OPTIONS", { method: "OPTIONS" }, 405],
    ["an absolute-form target", { url: `http://127.0.0.1:${G.port}/${G.token}/` }, 400],
    ["a huge target", { url: `/${G.token}/?q=${"x".repeat(9000)}` }, 414],
  ] as const)("refuses %s", (_what, change, status) => {
    expect(gate({ ...ok, ...change }, G)).toMatchObject({ ok: false, status });
  });

  it("binds nothing but the loopback addresses", () => {
    for (const a of ["127.0.0.1", "::1"]) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ["0.0.0.0", "::", "", "localhost", "127.0.0.2", "192.168.1.2", "::ffff:127.0.0.1"])
      expect(isLoopbackAddress(a)).toBe(false);
    expect(allowedHost("LOCALHOST:80", 80)).toBe(true);
  });
});
