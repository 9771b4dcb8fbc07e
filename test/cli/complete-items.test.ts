/**
 * A Tab's `__complete` is parsed without commander (src/cli/complete-items.ts) when its arguments
 * are the plain ones: that parse must be commander's, and must hand everything else to commander.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { COMPLETE_OPTIONS, COMPLETE_STORE_OPTIONS, parseCompleteArgs, questionArgs } from "../../src/cli/complete-items.js";
import { indexFileOf, pastRacyWindow } from "../helpers/index-cache.js";
import { copyState } from "../helpers/corpus.js";
import { answersDirOf } from "../../src/store/cache/location.js";
import { addCompleteOptions } from "../../src/cli/commands/completion.js";
import { addStoreOptions } from "../../src/cli/options.js";

/** What commander makes of `__complete <args>` as program.ts wires it: the item kind and the options, or null on a parse error. */
function commanderParse(args: string[]): { what: string; opts: Record<string, unknown> } | null {
  const program = new Command("openclaw-sessions").exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  program.option("--no-pager", "");
  let got: { what: string; opts: Record<string, unknown> } | null = null;
  const items = addCompleteOptions(program.command("__complete").argument("<what>", "").exitOverride());
  items.action((what: string, opts: Record<string, unknown>) => {
    got = { what, opts: { ...opts } };
  });
  try {
    program.parse(["__complete", ...args], { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) return null;
    throw err;
  }
  return got;
}

/** commander's options as the fast parse gives them: `index: true` is commander's default for --no-index, which selectionOf reads as absent. */
const withoutDefaults = (opts: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(opts).filter(([k, v]) => !(k === "index" && v === true) && v !== undefined));

describe("__complete's own parse", () => {
  it("declares exactly the store options addStoreOptions gives commander", () => {
    const cmd = addStoreOptions(new Command("x"));
    const declared = Object.fromEntries(
      cmd.options.map((o) => [o.long, { property: o.attributeName(), takesValue: o.required || o.optional }]),
    );
    expect(COMPLETE_STORE_OPTIONS).toEqual(declared);
  });

  it("declares exactly the options addCompleteOptions gives commander: the store's and --prefix", () => {
    const cmd = addCompleteOptions(new Command("x"));
    const declared = Object.fromEntries(
      cmd.options.map((o) => [o.long, { property: o.attributeName(), takesValue: o.required || o.optional }]),
    );
    expect(COMPLETE_OPTIONS).toEqual(declared);
  });

  it("reads what commander reads from the arguments the completion scripts pass", () => {
    const lines = [
      ["keys"],
      ["zones"],
      ["archives", "--state-dir", "/s"],
      ["keys", "--state-dir", "/a b", "--agent", "work"],
      ["keys", "--state-dir=/s", "--all-agents", "--no-index"],
      ["--profile", "dev", "keys", "--store", "/x/sessions.json"],
      ["keys", "--sessions-dir", "/d", "--state-dir", "/one", "--state-dir", "/two"],
      ["keys", "--agent", "--all-agents"],
      ["keys", "--state-dir="],
      ["keys", "--prefix=agent:main:", "--state-dir", "/s"],
      ["keys", "--prefix", "-x"],
      ["keys", "--prefix="],
    ];
    for (const args of lines) {
      const ours = parseCompleteArgs(args);
      const theirs = commanderParse(args);
      expect(theirs, args.join(" ")).not.toBeNull();
      expect(ours, args.join(" ")).toEqual({ what: theirs!.what, opts: withoutDefaults(theirs!.opts) });
    }
  });

  it("leaves anything else to commander (help, errors, the program's own options)", () => {
    const others = [
      [],
      ["--state-dir", "/s"],
      ["keys", "zones"],
      ["keys", "--state-dir"],
      ["keys", "--bogus"],
      ["keys", "-h"],
      ["keys", "--help"],
      ["keys", "--", "x"],
      ["keys", "--all-agents=yes"],
      ["keys", "--index"],
      ["keys", "--no-pager"],
      ["keys", "--version"],
      ["keys", "-"],
      ["keys", "--__proto__"],
    ];
    for (const args of others) expect(parseCompleteArgs(args), args.join(" ")).toBeNull();
  });
});

describe("questionArgs: the store options bash's Tab asks with (store/cache/tab-proof.ts)", () => {
  it("the arguments but the prefix, where it is the option and not another option's value", () => {
    expect(questionArgs(["--prefix=agent:", "--state-dir", "/s", "--agent=w"])).toEqual(["--state-dir", "/s", "--agent=w"]);
    expect(questionArgs(["--state-dir", "--prefix=x", "--prefix=y"])).toEqual(["--state-dir", "--prefix=x"]);
    expect(questionArgs(["--prefix", "x"])).toBeNull();
  });
});

describe("__complete on the shipped CLI", () => {
  it("answers a Tab from the proof the last one left with dist/tab.js alone, the same lines, while nothing changed", async () => {
    const dir = tempDir("ocs-complete-tab-");
    const stateDir = path.join(dir, "state");
    fs.mkdirSync(path.join(stateDir, "agents/main/sessions"), { recursive: true });
    fs.writeFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), JSON.stringify({ "agent:main:b": {}, "agent:main:a": {} }));
    await pastRacyWindow();
    // Each file the run reads, as the bin reads a bundle (a preload that wraps fs.readFileSync and fs.openSync).
    const log = path.join(dir, "read");
    const preload = path.join(dir, "log-reads.cjs");
    fs.writeFileSync(
      preload,
      `const fs = require("node:fs"); for (const name of ["readFileSync", "openSync"]) { const call = fs[name]; fs[name] = function (p, ...rest) { if (typeof p === "string") fs.appendFileSync(${JSON.stringify(log)}, p + "\\n"); return call.call(this, p, ...rest); }; }`,
    );
    const tab = () => {
      fs.rmSync(log, { force: true });
      const r = spawnSync(
        process.execPath,
        ["--require", preload, BIN, "__complete", "keys", "--prefix=agent:main:", "--state-dir", stateDir],
        {
          cwd: dir,
          encoding: "utf8",
          env: { PATH: process.env.PATH, HOME: path.join(dir, "home"), XDG_CACHE_HOME: path.join(dir, "cache"), PWD: dir },
        },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      const read = fs.readFileSync(log, "utf8").split("\n");
      return {
        out: r.stdout,
        cli: read.some((p) => p.endsWith(path.join("dist", "commands", "__complete.js"))),
        tab: read.some((p) => p.endsWith(path.join("dist", "tab.js"))),
      };
    };
    expect(tab()).toEqual({ out: "agent:main:a\nagent:main:b\n", cli: true, tab: true });
    expect(tab()).toEqual({ out: "agent:main:a\nagent:main:b\n", cli: false, tab: true });
    fs.writeFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), JSON.stringify({ "agent:main:c": {} }));
    expect(tab()).toEqual({ out: "agent:main:c\n", cli: true, tab: true });
  });

  it("archives: a store-wide answer, handed back while nothing changed (its file not written again), a new archive offered at once", async () => {
    const { stateDir, root } = copyState("files", "reset-chain");
    const sessions = path.join(stateDir, "agents/main/sessions");
    await pastRacyWindow();
    const env = { PATH: process.env.PATH, HOME: path.join(root, "home"), XDG_CACHE_HOME: path.join(root, "cache") };
    const tab = (...more: string[]) => {
      const r = spawnSync(process.execPath, [BIN, "__complete", "archives", "--state-dir", stateDir, ...more], { encoding: "utf8", env });
      expect(r.stderr).toBe("");
      return r.stdout;
    };
    /** The answer file kept for the question (its inode: a file written again is another). */
    const kept = () => {
      const dir = answersDirOf(indexFileOf(stateDir, env.XDG_CACHE_HOME));
      const name = fs.readdirSync(dir).find((n) => fs.readFileSync(path.join(dir, n), "utf8").startsWith('["complete-archives/'));
      return name === undefined ? null : fs.statSync(path.join(dir, name)).ino;
    };
    const plain = tab("--no-index");
    expect(plain.split("\n").filter(Boolean)).toHaveLength(3);
    expect(tab()).toBe(plain);
    const first = kept();
    expect(first).not.toBeNull();
    expect(tab()).toBe(plain);
    expect(kept()).toBe(first);

    const id = fs
      .readdirSync(sessions)
      .find((n) => n.endsWith(".jsonl"))!
      .slice(0, 36);
    fs.writeFileSync(path.join(sessions, `${id}.jsonl.reset.2026-07-02T10-00-00.000Z`), "");
    const grown = tab();
    expect(grown).toContain(`${id}.jsonl.reset.2026-07-02T10-00-00.000Z\n`);
    expect(grown).toBe(tab("--no-index"));
  });

  it("a shell that stops reading ends the list quietly: exit 0, nothing on stderr", () => {
    const stateDir = path.join(tempDir("ocs-complete-"), "state");
    fs.mkdirSync(path.join(stateDir, "agents/main/sessions"), { recursive: true });
    const keys = Array.from({ length: 20_000 }, (_, i) => `agent:main:telegram:direct:${String(i).padStart(24, "0")}`);
    const store = Object.fromEntries(keys.map((k, i) => [k, { sessionId: `s${i}`, updatedAt: i }]));
    fs.writeFileSync(path.join(stateDir, "agents/main/sessions/sessions.json"), JSON.stringify(store));
    // 1 MB of keys: far past what the pipe and head's read hold, so the write meets the closed pipe.
    const r = spawnSync(
      "bash",
      [
        "-c",
        `"$0" "$1" __complete keys --state-dir "$2" --no-index | head -1; echo "status \${PIPESTATUS[0]}" >&2`,
        process.execPath,
        BIN,
        stateDir,
      ],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: homeNotMade() },
      },
    );
    expect(r.stdout).toBe(`${keys[0]}\n`);
    expect(r.stderr).toBe("status 0\n");
  });
});
