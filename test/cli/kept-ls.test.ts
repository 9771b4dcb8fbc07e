/**
 * `ls --json` printed by the bin from the listing an earlier run proved (src/cli/kept-ls.ts), with
 * none of the CLI loaded: the same bytes as the CLI's, and never once anything it was derived from
 * changed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { copyState } from "../helpers/corpus.js";
import { pastRacyWindow } from "../helpers/index-cache.js";
import { keptLsQuestion } from "../../src/cli/kept-ls.js";

/** A store copy, and `ls` run on it through the shipped bin: its output, and whether it loaded the CLI's bundle or dist/tab.js. */
function setUp(name = "reset-chain") {
  const { stateDir, root } = copyState("files", name);
  const cache = path.join(root, "cache");
  // Each file the run reads, as the bin reads a bundle (a preload that wraps fs.readFileSync and fs.openSync).
  const log = path.join(root, "read");
  const preload = path.join(root, "log-reads.cjs");
  fs.writeFileSync(
    preload,
    `const fs = require("node:fs"); for (const name of ["readFileSync", "openSync"]) { const call = fs[name]; fs[name] = function (p, ...rest) { if (typeof p === "string") fs.appendFileSync(${JSON.stringify(log)}, p + "\\n"); return call.call(this, p, ...rest); }; }`,
  );
  const env = { PATH: process.env.PATH, HOME: path.join(root, "home"), XDG_CACHE_HOME: cache, PWD: root };
  const ls = (...args: string[]) => {
    fs.rmSync(log, { force: true });
    // A hang guard (a FIFO where a proof goes), nothing measured against it.
    const r = spawnSync(process.execPath, ["--require", preload, BIN, "ls", ...args], {
      cwd: root,
      encoding: "utf8",
      env,
      timeout: 170_000,
    });
    const read = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : [];
    return {
      out: r.stdout,
      err: r.stderr,
      code: r.status,
      cli: read.some((p) => /dist[\\/](commands[\\/]ls|cli)\.js$/.test(p)),
      tab: read.some((p) => p.endsWith(path.join("dist", "tab.js"))),
    };
  };
  const proofs = () =>
    fs.existsSync(path.join(cache, "openclaw-sessions/tab")) ? fs.readdirSync(path.join(cache, "openclaw-sessions/tab")) : [];
  return { stateDir, root, cache, ls, proofs, sessions: path.join(stateDir, "agents/main/sessions") };
}

describe("ls --json from the bin alone (src/cli/kept-ls.ts)", () => {
  it("prints a proven listing with dist/tab.js alone, the CLI's bytes, until anything it came from changes", async () => {
    const { stateDir, ls, proofs, sessions } = setUp();
    const state = ["--json", "--state-dir", stateDir];
    await pastRacyWindow();
    const truth = () => ls(...state, "--no-index").out;
    const first = truth();
    expect(JSON.parse(first).sessions).toHaveLength(2);
    // Derived and kept; handed back kept (the proof written); then the bin alone.
    expect(ls(...state)).toMatchObject({ out: first, err: "", code: 0, cli: true });
    expect(ls(...state)).toMatchObject({ out: first, err: "", code: 0, cli: true });
    expect(proofs()).toEqual([expect.stringMatching(/^ls-\d+$/)]);
    expect(ls(...state)).toEqual({ out: first, err: "", code: 0, cli: false, tab: true });
    expect(ls(...state)).toEqual({ out: first, err: "", code: 0, cli: false, tab: true });

    // OpenClaw appends to the active transcript; resets a key (its transcript renamed, a new one
    // begun); writes sessions.json again by a rename: each time the CLI answers, with what is on disk now.
    const active = fs.readdirSync(sessions).find((n) => n.endsWith(".jsonl"))!;
    const changes = [
      () => fs.appendFileSync(path.join(sessions, active), `${JSON.stringify({ type: "custom", customType: "probe", data: {} })}\n`),
      () => {
        fs.renameSync(path.join(sessions, active), path.join(sessions, `${active}.reset.2026-07-02T10-00-00.000Z`));
        fs.writeFileSync(path.join(sessions, active), `${JSON.stringify({ type: "session", version: 3, id: active.slice(0, -6) })}\n`);
      },
      () => {
        const file = path.join(sessions, "sessions.json");
        const entries = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
        entries["agent:main:new"] = entries["agent:main:main"];
        fs.writeFileSync(`${file}.tmp`, JSON.stringify(entries, null, 2));
        fs.renameSync(`${file}.tmp`, file);
      },
    ];
    let before = first;
    for (const change of changes) {
      change();
      const now = truth();
      expect(now).not.toBe(before);
      expect(ls(...state)).toMatchObject({ out: now, code: 0, cli: true });
      // A file changed within the last 2 s proves nothing yet: the listing is kept, then proven, once it is older.
      await pastRacyWindow();
      const runs = [ls(...state), ls(...state), ls(...state), ls(...state)];
      expect(runs.map((r) => r.out === now && r.code === 0)).toEqual([true, true, true, true]);
      expect(runs.at(-1)!.cli).toBe(false);
      before = now;
    }

    // A damaged proof is none: the CLI answers, and writes it again.
    const file = path.join(path.dirname(stateDir), "cache/openclaw-sessions/tab", proofs()[0]!);
    const whole = fs.readFileSync(file);
    for (const damaged of [
      whole.subarray(0, -1),
      Buffer.concat([whole, Buffer.from(" ")]),
      Buffer.from(whole.toString("latin1").replace("openclaw-sessions ls 1", "openclaw-sessions ls 9"), "latin1"),
    ]) {
      fs.writeFileSync(file, damaged);
      expect(ls(...state)).toMatchObject({ out: before, code: 0, cli: true });
      expect(fs.readFileSync(file)).toEqual(whole);
    }

    // index --forget takes it with the index.
    expect(
      spawnSync(process.execPath, [BIN, "index", "--forget", "--state-dir", stateDir], {
        env: {
          ...process.env,
          XDG_CACHE_HOME: path.join(path.dirname(stateDir), "cache"),
          HOME: path.join(path.dirname(stateDir), "home"),
        },
      }).status,
    ).toBe(0);
    expect(proofs()).toEqual([]);
  });

  it("a key whose transcript is gone: the home dir OpenClaw would look in last, proven by there being nothing there", async () => {
    const { stateDir, root, ls, proofs } = setUp("fallback-active-missing");
    const state = ["--json", "--state-dir", stateDir];
    await pastRacyWindow();
    const before = ls(...state, "--no-index").out;
    expect([ls(...state), ls(...state), ls(...state)].map((r) => [r.out === before, r.cli])).toEqual([
      [true, true],
      [true, true],
      [true, false],
    ]);
    expect(proofs()).toHaveLength(1);
    // That dir made (empty): what the listing was derived from changed, so the CLI answers (the same listing).
    const home = path.join(root, "home", ".openclaw", "sessions");
    fs.mkdirSync(home, { recursive: true });
    expect(ls(...state)).toMatchObject({ out: before, code: 0, cli: true });
    // The transcript turns up there: the CLI answers, and lists it.
    fs.writeFileSync(
      path.join(home, "cda622b0-9443-4aae-a288-df334d442ee0.jsonl"),
      `${JSON.stringify({ type: "session", version: 3, id: "cda622b0-9443-4aae-a288-df334d442ee0" })}\n`,
    );
    const after = ls(...state, "--no-index").out;
    expect(after).not.toBe(before);
    expect(ls(...state)).toMatchObject({ out: after, code: 0, cli: true });
  });

  it("only for `ls --json` and store options, whose run printed the listing alone", async () => {
    const { stateDir, ls, proofs } = setUp();
    await pastRacyWindow();
    for (const args of [["--tz", "UTC"], ["agent:main:main"], ["--limit", "1"], ["--no-index"], ["--quiet"]]) {
      const runs = [
        ls("--json", "--state-dir", stateDir, ...args),
        ls("--json", "--state-dir", stateDir, ...args),
        ls("--json", "--state-dir", stateDir, ...args),
      ];
      expect(
        runs.map((r) => r.cli),
        args.join(" "),
      ).toEqual([true, true, true]);
      expect(new Set(runs.map((r) => r.out)).size).toBe(1);
    }
    // The text table is no listing of this kind either.
    expect([ls("--state-dir", stateDir), ls("--state-dir", stateDir), ls("--state-dir", stateDir)].map((r) => r.cli)).toEqual([
      true,
      true,
      true,
    ]);
    expect(proofs()).toEqual([]);

    expect(keptLsQuestion(["ls", "--json", "--state-dir", "/s"], { HOME: "/h", PWD: "/" }, "/")).toBe(
      "cwd=/\narg=ls\narg=--json\narg=--state-dir\narg=/s\nenv=HOME=/h",
    );
    expect(keptLsQuestion(["ls", "--state-dir=/s", "--all-agents", "--json"], { HOME: "/h", PWD: "/" }, "/")).not.toBeNull();
    for (const argv of [
      ["ls"],
      ["ls", "--json", "--json"],
      ["ls", "--json", "--state-dir"],
      ["ls", "--json", "--all-agents=1"],
      ["ls", "--json", "k"],
      ["timeline", "--json"],
      ["ls", "--json", "--no-index"],
    ])
      expect(keptLsQuestion(argv, { HOME: "/h", PWD: "/" }, "/"), argv.join(" ")).toBeNull();
  });

  it("a FIFO or a symlink where a proof goes is none: no hang, the CLI answers (ls --json and a Tab's keys)", async () => {
    const { stateDir, root, cache, ls, proofs } = setUp();
    await pastRacyWindow();
    const state = ["--json", "--state-dir", stateDir];
    const listing = ls(...state, "--no-index").out;
    ls(...state);
    ls(...state);
    const [name] = proofs();
    const file = path.join(cache, "openclaw-sessions/tab", name!);
    const keys = () =>
      spawnSync(process.execPath, [BIN, "__complete", "keys", "--state-dir", stateDir], {
        cwd: root,
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: path.join(root, "home"), XDG_CACHE_HOME: cache, PWD: root },
        timeout: 170_000, // a hang guard, nothing measured against it
      });
    expect(keys().stdout).toBe("agent:main:main\nagent:main:telegram:direct:424242\n"); // leaves a Tab's proof too
    const tabProof = path.join(cache, "openclaw-sessions/tab", proofs().find((n) => n.startsWith("keys-"))!);
    for (const proof of [file, tabProof]) {
      fs.rmSync(proof);
      expect(spawnSync("mkfifo", [proof]).status).toBe(0);
    }
    expect(ls(...state)).toMatchObject({ out: listing, code: 0, cli: true });
    expect(keys()).toMatchObject({ status: 0, stdout: "agent:main:main\nagent:main:telegram:direct:424242\n" });
    const elsewhere = path.join(root, "elsewhere");
    fs.copyFileSync(path.join(root, "read"), elsewhere);
    fs.rmSync(file, { force: true });
    fs.symlinkSync(elsewhere, file);
    expect(ls(...state)).toMatchObject({ out: listing, code: 0, cli: true });
  });

  it("never for a store whose listing comes with lines on stderr or another exit code", async () => {
    const { stateDir, ls, proofs, sessions } = setUp();
    // An entry OpenClaw's loader drops (not an object): a warning on stderr with each listing.
    const file = path.join(sessions, "sessions.json");
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), "agent:main:dropped": "gone" }, null, 2));
    await pastRacyWindow();
    const runs = [1, 2, 3].map(() => ls("--json", "--state-dir", stateDir));
    expect(runs[0]!.err).toMatch(/agent:main:dropped/);
    expect(runs.map((r) => [r.cli, r.err, r.code])).toEqual([1, 2, 3].map(() => [true, runs[0]!.err, runs[0]!.code]));
    // A 0-byte sessions.json: a store problem, exit 3.
    fs.writeFileSync(file, "");
    await pastRacyWindow();
    const empty = [1, 2, 3].map(() => ls("--json", "--state-dir", stateDir));
    expect(empty.map((r) => [r.cli, r.code])).toEqual([
      [true, 3],
      [true, 3],
      [true, 3],
    ]);
    expect(proofs()).toEqual([]);
  });
});
