/** The shipped entry: the runtime floor, the bundle as users run it, no driver noise on stderr. */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { ROOT, scenarioDir } from "../helpers/corpus.js";
import { homeNotMade } from "../helpers/temp.js";

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  version: string;
  engines: { node: string };
  dependencies?: Record<string, string>;
};

const runBin = (node: string, args: string[]) =>
  spawnSync(node, [BIN, ...args], { encoding: "utf8", env: { PATH: process.env.PATH, HOME: homeNotMade(), NO_COLOR: "1" } });

/** Node binaries on this machine other than the one running the tests, with their versions. */
function otherNodes(): { bin: string; version: string }[] {
  const out: { bin: string; version: string }[] = [];
  for (const bin of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (!fs.existsSync(bin)) continue;
    const version = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
    if (version) out.push({ bin, version });
  }
  return out;
}

const floor = pkg.engines.node.replace(/^>=/, "").split(".").map(Number);
const belowFloor = (v: string) => {
  const have = v.split(".").map(Number);
  const i = floor.findIndex((n, j) => have[j] !== n);
  return i !== -1 && have[i]! < floor[i]!;
};

describe("runtime", () => {
  it("the bin's floor is engines.node, and the package installs no runtime dependency", () => {
    const src = fs.readFileSync(BIN, "utf8");
    expect(src).toContain(`const FLOOR = [${floor.join(", ")}];`);
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it("runs on this Node and answers --version from package.json", () => {
    const r = runBin(process.execPath, ["--version"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it("reads a SQLite store through node:sqlite with nothing on stderr (no experimental warning)", () => {
    const stateDir = path.join(scenarioDir("sqlite", "sqlite-basic"), "state");
    const r = runBin(process.execPath, ["ls", "--json", "--state-dir", stateDir]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.stores[0].era).toBe("sqlite");
    expect(doc.sessions.length).toBeGreaterThan(0);
  });

  const old = otherNodes().filter((n) => belowFloor(n.version));
  it.skipIf(old.length === 0)("an older Node gets one line and exit 3, never a stack", () => {
    for (const { bin, version } of old) {
      const r = runBin(bin, ["ls"]);
      expect(r.status, bin).toBe(3);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`needs Node.js ${floor.join(".")} or newer`);
      expect(r.stderr).toContain(`v${version}`);
    }
  });
});
