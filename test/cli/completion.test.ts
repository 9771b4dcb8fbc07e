import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, ROOT, scenarioDir } from "../helpers/corpus.js";
import { homeNotMade, tempDir } from "../helpers/temp.js";
import { BIN } from "../helpers/built-cli.js";
import { pastRacyWindow } from "../helpers/index-cache.js";

/** A PATH entry with an `openclaw-sessions` that runs this checkout's source. */
function shimDir(): string {
  const dir = tempDir("ocs-shim-");
  const shim = path.join(dir, "openclaw-sessions");
  fs.writeFileSync(shim, `#!/bin/sh\nexec node --import tsx "${ROOT}/test/helpers/run-cli.ts" "$@"\n`, { mode: 0o755 });
  return dir;
}

describe("completion", () => {
  it("prints scripts naming every command and its flags", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await cli(["completion", shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("ls");
      expect(r.stdout).toContain(shell === "fish" ? "-l all-agents" : "--all-agents");
      expect(r.stdout).toContain("__complete");
      expect(r.stdout).not.toContain("__complete)"); // the hidden command is not offered
    }
    expect((await cli(["completion", "tcsh"])).code).toBe(2);
  });

  it("__complete keys: every key of the store, sorted, once; in both eras; nothing when there is no store", async () => {
    const files = path.join(scenarioDir("files", "reset-chain"), "state");
    expect((await cli(["__complete", "keys", "--state-dir", files])).stdout).toBe("agent:main:main\nagent:main:telegram:direct:424242\n");
    const sqlite = copyState("sqlite", "sqlite-basic");
    const keys = await cli(["__complete", "keys", "--state-dir", sqlite.stateDir, "--all-agents"], { env: { HOME: sqlite.home } });
    expect(keys.stdout.split("\n").filter(Boolean)).toEqual(["agent:main:main", "agent:main:telegram:direct:5550001", "agent:work:main"]);
    const none = await cli(["__complete", "keys", "--state-dir", "/nonexistent"]);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, "", ""]);
  });

  it("__complete keys leaves out a key with a control character, TAB or LF: it would reach the terminal through the shell as it is", async () => {
    const { stateDir } = copyState("files", "reset-chain");
    const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
    const store = JSON.parse(fs.readFileSync(storePath, "utf8"));
    const entry = store["agent:main:main"];
    for (const k of ["agent:main:evil\u001b]0;pwned\u0007", "agent:main:two\nlines", "agent:main:tab\there", "agent:main:\u202egnp.exe"])
      store[k] = { ...entry };
    fs.writeFileSync(storePath, JSON.stringify(store, null, 2));
    const r = await cli(["__complete", "keys", "--state-dir", stateDir]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "agent:main:main\nagent:main:telegram:direct:424242\n", ""]);
  });

  it("scripts offer option values, paths and dynamic items in every shell", async () => {
    const zsh = (await cli(["completion", "zsh"])).stdout;
    expect(zsh).toContain("--state-dir[");
    expect(zsh).toMatch(/--state-dir\[[^\]]*\]:[^:]*:_files -\//);
    expect(zsh).toMatch(/--format\[[^\]]*\]:[^:]*:\(md html jsonl\)/);
    expect(zsh).toContain("_openclaw_sessions_keys");
    expect(zsh).toContain("_openclaw_sessions_archives");
    const fish = (await cli(["completion", "fish"])).stdout;
    expect(fish).toMatch(/-l state-dir -x -a "\(__fish_complete_directories\)"/);
    expect(fish).toMatch(/-l output -s o -r -F/);
    expect(fish).toMatch(/-l fail-on -x -a "error warn never"/);
    expect(fish).toMatch(/__fish_seen_subcommand_from grep" -l key -x -a "\(__openclaw_sessions_complete keys\)"/);
  });

  describe("bash, driven through bash itself", () => {
    const roots: string[] = [];
    afterAll(() => {
      for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
    });
    let file = "";
    let env: NodeJS.ProcessEnv = {};
    const state = path.join(scenarioDir("files", "reset-chain"), "state");
    beforeAll(async () => {
      const dir = tempDir("ocs-comp-");
      const shim = shimDir();
      roots.push(dir, shim);
      file = path.join(dir, "c.bash");
      fs.writeFileSync(file, (await cli(["completion", "bash"])).stdout);
      env = { PATH: `${shim}:${process.env.PATH}`, OPENCLAW_STATE_DIR: state, HOME: homeNotMade() };
    });

    /** Completes the line as bash does on Tab: COMP_LINE/COMP_POINT, and COMP_WORDS split at COMP_WORDBREAKS. */
    const complete = (line: string, extraEnv: NodeJS.ProcessEnv = {}) => {
      const script = `source "${file}"
COMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}
_openclaw_sessions
printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = spawnSync("bash", ["--norc", "--noprofile", "-c", script], { env: { ...env, ...extraEnv }, encoding: "utf8" });
      expect(r.stderr).toBe("");
      return r.stdout.split("\n").filter(Boolean);
    };

    it("commands and flags", () => {
      expect(complete("openclaw-sessions l")).toEqual(["ls"]);
      expect(complete("openclaw-sessions ls --all")).toEqual(["--all-agents"]);
    });

    it("keys, and after agent:main: only the rest (never agent:main::)", () => {
      expect(complete("openclaw-sessions ls agent")).toEqual(["agent:main:main", "agent:main:telegram:direct:424242"]);
      // Bash replaces the text after the last ":" only: the reply must be that part.
      expect(complete("openclaw-sessions ls agent:main:")).toEqual(["main", "telegram:direct:424242"]);
      expect(complete("openclaw-sessions history agent:main:te")).toEqual(["telegram:direct:424242"]);
      expect(complete("openclaw-sessions grep x --key agent:main:m")).toEqual(["main"]);
      expect(complete("openclaw-sessions restore --key agent:main:t")).toEqual(["telegram:direct:424242"]);
    });

    it("honours --state-dir typed on the line", () => {
      const other = path.join(scenarioDir("files", "single-active"), "state");
      expect(complete(`openclaw-sessions ls --state-dir ${other} agent:`, { OPENCLAW_STATE_DIR: "/nonexistent" })).toEqual(["main:main"]);
      expect(complete(`openclaw-sessions ls agent:`, { OPENCLAW_STATE_DIR: "/nonexistent" })).toEqual([]);
    });

    it("archive names after restore, option values, paths", () => {
      expect(complete("openclaw-sessions restore 9648")).toEqual([
        "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z",
      ]);
      expect(complete("openclaw-sessions export k --format h")).toEqual(["html"]);
      expect(complete("openclaw-sessions grep x --role tool")).toEqual(["toolResult"]);
      expect(complete("openclaw-sessions timeline --sort r")).toEqual(["recent-reset"]);
      expect(complete("openclaw-sessions usage --by d")).toEqual(["day"]);
      expect(complete("openclaw-sessions check --fail-on w")).toEqual(["warn"]);
      expect(complete("openclaw-sessions timeline --tz Europe/Berl")).toEqual(["Europe/Berlin"]);
      expect(complete(`openclaw-sessions ls --state-dir ${path.dirname(state)}/st`)).toEqual([state]);
      expect(complete("openclaw-sessions history --tail ")).toEqual([]);
    });

    it("a key is offered as it is written: never expanded as shell words (a `$(…)` in it is not run), never globbed", () => {
      const { stateDir } = copyState("files", "reset-chain");
      const marker = path.join(tempDir("ocs-comp-marker-"), "ran");
      const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
      const entries = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>;
      const entry = entries["agent:main:main"];
      const hostile = [`agent:main:x$(touch ${marker})`, "agent:main:x$HOME", "agent:main:x*", "agent:main:x y"];
      for (const key of hostile) entries[key] = entry;
      fs.writeFileSync(storePath, JSON.stringify(entries, null, 2));
      const offered = complete("openclaw-sessions ls agent:main:x", { OPENCLAW_STATE_DIR: stateDir });
      // Bash replaces the text after the last ":" only: the reply is that part of each key.
      expect(offered.sort()).toEqual(hostile.map((k) => k.slice("agent:main:".length)).sort());
      expect(fs.existsSync(marker)).toBe(false);
      expect(complete("openclaw-sessions ls agent:main:x*", { OPENCLAW_STATE_DIR: stateDir })).toEqual(["x*"]);
    });

    it("a real Tab in an interactive bash completes a key after agent:main:", () => {
      // bash -i in a pty (script): type the line, press Tab, run it; ls of the completed key prints its detail.
      const input = `source "${file}"\nopenclaw-sessions ls agent:main:te\t\nexit\n`;
      const r = spawnSync("script", ["-qec", "bash --norc --noprofile -i", "/dev/null"], {
        input,
        env: { ...env, TERM: "dumb", PS1: "$ " },
        encoding: "utf8",
        // A hung bash is killed when the runner gives up on the test (vitest.config.ts), never on a loaded machine's clock.
        timeout: 170_000,
      });
      expect(r.stdout).toContain("agent:main:telegram:direct:424242");
      expect(r.stdout).toMatch(/sessionId\s+f1091dc4-aaaf-4980-b920-36af23252a48/);
      expect(r.stdout).not.toContain("agent:main::");
    });
  });
});

const hasShell = (sh: string) => spawnSync("sh", ["-c", `command -v ${sh}`], { stdio: "ignore" }).status === 0;
const gnuStat = spawnSync("stat", ["--version"], { encoding: "utf8" }).stdout?.includes("GNU coreutils") ?? false;

/** The shipped tool on PATH, each start of it logged; the script `shell` gets from it; a store; a cache dir of its own. */
function tabSetUp(shell: "bash" | "zsh" | "fish") {
  const { stateDir } = copyState("files", "reset-chain");
  const dir = tempDir("ocs-tab-");
  const log = path.join(dir, "started");
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "openclaw-sessions"), `#!/bin/sh\necho "$*" >> "${log}"\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
    mode: 0o755,
  });
  const script = path.join(dir, `c.${shell}`);
  fs.writeFileSync(script, spawnSync(process.execPath, [BIN, "completion", shell], { encoding: "utf8" }).stdout);
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: path.join(dir, "home"),
    XDG_CACHE_HOME: path.join(dir, "cache"),
    OPENCLAW_STATE_DIR: stateDir,
  };
  const starts = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
  const proofFile = () => {
    const proofs = path.join(env.XDG_CACHE_HOME, "openclaw-sessions/tab");
    return path.join(proofs, fs.readdirSync(proofs)[0]!);
  };
  /** A key `agent:main:new` written as OpenClaw writes sessions.json: whole, by a rename. */
  const addKey = () => {
    const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
    const entries = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>;
    entries["agent:main:new"] = entries["agent:main:main"];
    fs.writeFileSync(`${storePath}.tmp`, JSON.stringify(entries, null, 2));
    fs.renameSync(`${storePath}.tmp`, storePath);
  };
  return { stateDir, dir, bin, env, script, starts, proofFile, addKey };
}

describe.runIf(gnuStat)("bash answers a Tab itself while nothing the keys came from has changed (store/cache/tab-proof.ts)", () => {
  function setUp() {
    const set = tabSetUp("bash");
    const tab = (line: string) => {
      const r = spawnSync(
        "bash",
        [
          "--norc",
          "--noprofile",
          "-c",
          `source "${set.script}"\nCOMP_LINE=${JSON.stringify(line)}; COMP_POINT=\${#COMP_LINE}\n_openclaw_sessions\nprintf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { env: set.env, encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      return r.stdout.split("\n").filter(Boolean).sort();
    };
    return { ...set, tab };
  }

  it("the tool starts for the first Tab only; a changed sessions.json, a new agent dir or another stat sends the Tab to it again", async () => {
    const { stateDir, dir, bin, tab, starts, addKey } = setUp();
    await pastRacyWindow();
    const keys = ["agent:main:main", "agent:main:telegram:direct:424242"];
    expect(tab("openclaw-sessions ls agent")).toEqual(keys);
    expect(starts()).toBe(1);
    // The proof it left answers the next Tabs, whatever the word: the same keys as the tool's.
    expect(tab("openclaw-sessions ls agent")).toEqual(keys);
    expect(tab("openclaw-sessions history agent:main:te")).toEqual(["telegram:direct:424242"]);
    expect(tab("openclaw-sessions ls agent:main:zz")).toEqual([]);
    expect(tab("openclaw-sessions ls ")).toEqual(keys);
    expect(starts()).toBe(1);
    // Another question (a store option on the line) is the tool's.
    expect(tab(`openclaw-sessions ls --state-dir ${stateDir} agent`)).toEqual(keys);
    expect(starts()).toBe(2);

    // OpenClaw writes a key: the next Tab offers it. Written under RACY_MS ago, it is not proven yet.
    addKey();
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(4);
    await pastRacyWindow();
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(5);

    // A new agent dir: where the stores are may have changed.
    fs.mkdirSync(path.join(stateDir, "agents/work/sessions"), { recursive: true });
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(6);
    await pastRacyWindow();
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(7);

    // The state dir gone: no keys, from the tool. Back, as it was (the same files): the proof holds again.
    fs.renameSync(stateDir, `${stateDir}.moved`);
    expect(tab("openclaw-sessions ls agent")).toEqual([]);
    expect(starts()).toBe(8);
    fs.renameSync(`${stateDir}.moved`, stateDir);
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(8);

    // A `stat` that prints anything else than GNU stat did is never trusted.
    fs.writeFileSync(path.join(bin, "stat"), "#!/bin/sh\necho other\n", { mode: 0o755 });
    expect(tab("openclaw-sessions ls agent:main:n")).toEqual(["new"]);
    expect(starts()).toBe(9);
    fs.rmSync(path.join(bin, "stat"));

    // The proof names the running bundle: another build is a change.
    const proofs = path.join(dir, "cache/openclaw-sessions/tab");
    const proof = fs.readdirSync(proofs).map((n) => fs.readFileSync(path.join(proofs, n), "utf8"));
    expect(proof.some((text) => text.split("\n").includes(path.join(ROOT, "dist/commands/__complete.js")))).toBe(true);
  });

  it("a damaged proof is never trusted, and says nothing", async () => {
    const { env, tab, starts } = setUp();
    await pastRacyWindow();
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    const proofs = path.join(env.XDG_CACHE_HOME, "openclaw-sessions/tab");
    const [name] = fs.readdirSync(proofs);
    const file = path.join(proofs, name!);
    const text = fs.readFileSync(file, "utf8");
    const lines = text.split("\n");
    // A count that is no number (an arithmetic expression, which bash would evaluate).
    const marker = path.join(path.dirname(file), "ran");
    fs.writeFileSync(file, [lines[0], `x[$(touch ${marker})]`, ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(fs.existsSync(marker)).toBe(false);
    expect(starts()).toBe(2);
    // A count past what the shell's arithmetic holds: said nowhere (tab() sees stderr empty), asked of the tool.
    fs.writeFileSync(file, [lines[0], "9".repeat(30), ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(3);
    // A count far past the lines left: bash stops at the file's end (it read on a billion times).
    fs.writeFileSync(file, [lines[0], "999999999", ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(4);
    // A stat line that is not what stat prints now.
    const printed = lines.findIndex((l) => l.endsWith("sessions.json") && /^[0-9a-f]+:/.test(l));
    fs.writeFileSync(file, lines.map((l, i) => (i === printed ? l.replace(/^[0-9a-f]+:/, "0:") : l)).join("\n"));
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(5);
    // Cut short, in its head or in its keys: the tool writes it whole again, and the next Tab is bash's.
    fs.writeFileSync(file, lines.slice(0, 5).join("\n"));
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(6);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    fs.writeFileSync(file, `${lines.slice(0, -2).join("\n")}\n`);
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(7);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(tab("openclaw-sessions ls agent:main:m")).toEqual(["main"]);
    expect(starts()).toBe(7);
  });
});

describe.runIf(hasShell("zsh"))("zsh answers a Tab itself from the same proof (its own zstat: no GNU stat needed)", () => {
  function setUp() {
    const set = tabSetUp("zsh");
    /** The keys zsh's function hands compadd for the words on the line (the last one being completed). */
    const tab = (...words: string[]) => {
      const probe = `compdef() { :; }
source ${JSON.stringify(set.script)}
compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }
words=( "\${(@f)TAB_WORDS}" ); CURRENT=\${#words}
_openclaw_sessions_keys`;
      const r = spawnSync("zsh", ["-f", "-c", probe], { env: { ...set.env, TAB_WORDS: words.join("\n") }, encoding: "utf8" });
      expect(r.stderr).toBe("");
      return r.stdout.split("\n").filter(Boolean).sort();
    };
    return { ...set, tab };
  }
  const keys = ["agent:main:main", "agent:main:telegram:direct:424242"];

  it("the tool starts for the first Tab only, also for a store option with a blank; a changed sessions.json sends the Tab to it again", async () => {
    const { stateDir, dir, tab, starts, addKey } = setUp();
    const spaced = path.join(dir, "my state");
    fs.symlinkSync(stateDir, spaced);
    await pastRacyWindow();
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(tab("openclaw-sessions", "ls", "")).toEqual(keys);
    expect(starts()).toBe(1);
    // As typed: quoted, one word; the tool is asked for it once.
    expect(tab("openclaw-sessions", "ls", "--state-dir", `'${spaced}'`, "agent")).toEqual(keys);
    expect(tab("openclaw-sessions", "ls", "--state-dir", `'${spaced}'`, "agent")).toEqual(keys);
    expect(starts()).toBe(2);
    addKey();
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual([...keys, "agent:main:new"].sort());
    expect(starts()).toBe(3);
  });

  it("a real Tab in an interactive zsh (compinit) completes a key; the next one starts no tool", async () => {
    const { env, script, starts } = setUp();
    await pastRacyWindow();
    // zsh -i in a pty (script): type the line, press Tab, run it; ls of the completed key prints its detail.
    const session = () =>
      spawnSync("script", ["-qec", "zsh -f -i", "/dev/null"], {
        input: `autoload -U compinit; compinit -u; source "${script}"\nopenclaw-sessions ls agent:main:te\t\nexit\n`,
        env: { ...env, TERM: "dumb", PS1: "$ " },
        encoding: "utf8",
        // A hung zsh is killed when the runner gives up on the test (vitest.config.ts), never on a loaded machine's clock.
        timeout: 170_000,
      }).stdout;
    expect(session()).toMatch(/sessionId\s+f1091dc4-aaaf-4980-b920-36af23252a48/);
    expect(starts()).toBe(2); // __complete keys, then the ls
    expect(session()).toMatch(/sessionId\s+f1091dc4-aaaf-4980-b920-36af23252a48/);
    expect(starts()).toBe(3); // the ls alone
  });

  it("a damaged proof is never trusted, and says nothing", async () => {
    const { dir, tab, starts, proofFile } = setUp();
    await pastRacyWindow();
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    const file = proofFile();
    const text = fs.readFileSync(file, "utf8");
    const lines = text.split("\n");
    // A count that is no number (an arithmetic expression, which zsh would evaluate).
    const marker = path.join(dir, "ran");
    fs.writeFileSync(file, [lines[0], `x[$(touch ${marker})]`, ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(fs.existsSync(marker)).toBe(false);
    expect(starts()).toBe(2);
    // A count past what the shell's arithmetic holds: said nowhere (tab() sees stderr empty), asked of the tool.
    fs.writeFileSync(file, [lines[0], "9".repeat(30), ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(starts()).toBe(3);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    // A stat line that is not what zstat finds now (another ctime, to the ns).
    const printed = lines.findIndex((l) => l.endsWith("sessions.json") && /^[0-9a-f]+:/.test(l));
    const otherCtime = (l: string) => l.replace(/(\d) \//, (_m, d: string) => `${(Number(d) + 1) % 10} /`);
    fs.writeFileSync(file, lines.map((l, i) => (i === printed ? otherCtime(l) : l)).join("\n"));
    expect(fs.readFileSync(file, "utf8")).not.toBe(text);
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(starts()).toBe(4);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    // Cut inside its last key: every count still holds, but the key is not whole.
    fs.writeFileSync(file, text.slice(0, -5));
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(starts()).toBe(5);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(tab("openclaw-sessions", "ls", "agent")).toEqual(keys);
    expect(starts()).toBe(5);
  });
});

describe.runIf(gnuStat && hasShell("fish"))("fish answers a Tab itself from the same proof", () => {
  function setUp() {
    const set = tabSetUp("fish");
    /** The keys fish offers for a line (its own matching: the whole key); `cacheHome` for another cache dir. */
    const tab = (line: string, cacheHome = set.env.XDG_CACHE_HOME) => {
      const r = spawnSync("fish", ["--no-config", "-c", `source ${JSON.stringify(set.script)}; complete -C ${JSON.stringify(line)}`], {
        env: { ...set.env, XDG_CACHE_HOME: cacheHome },
        encoding: "utf8",
      });
      expect(r.stderr).toBe("");
      return r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0])
        .sort();
    };
    return { ...set, tab };
  }
  const keys = ["agent:main:main", "agent:main:telegram:direct:424242"];

  it("the tool starts for the first Tab only; a store option on the line is another question; a changed sessions.json asks the tool", async () => {
    const { stateDir, tab, starts, addKey } = setUp();
    await pastRacyWindow();
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    expect(tab("openclaw-sessions ls agent:main:t")).toEqual(["agent:main:telegram:direct:424242"]);
    expect(starts()).toBe(1);
    expect(tab(`openclaw-sessions ls --state-dir ${stateDir} agent:`)).toEqual(keys);
    expect(tab(`openclaw-sessions ls --state-dir ${stateDir} agent:`)).toEqual(keys);
    expect(starts()).toBe(2);
    addKey();
    expect(tab("openclaw-sessions history agent:main:")).toEqual([...keys, "agent:main:new"].sort());
    expect(starts()).toBe(3);
  });

  it("offers from the proof exactly what fish offers of the tool's every key, whatever the word", async () => {
    const { stateDir, dir, tab, starts } = setUp();
    const storePath = path.join(stateDir, "agents/main/sessions/sessions.json");
    const addKeys = async (keys: string[]) => {
      const entries = JSON.parse(fs.readFileSync(storePath, "utf8")) as Record<string, unknown>;
      for (const k of keys) entries[k] = entries["agent:main:main"];
      fs.writeFileSync(storePath, JSON.stringify(entries, null, 2));
      await pastRacyWindow();
      tab("openclaw-sessions history agent"); // leaves the proof of the keys as they are now
    };
    /** What fish offers when the tool prints every key: a cache with no proof, made anew each time. */
    const fromTool = (line: string) => {
      const cache = fs.mkdtempSync(path.join(dir, "no-proof-"));
      const offered = tab(line, cache);
      fs.rmSync(cache, { recursive: true, force: true });
      return offered;
    };
    const sameAsTool = (words: string[]) => {
      const started = starts();
      for (const word of words)
        expect(tab(`openclaw-sessions history ${word}`), word).toEqual(fromTool(`openclaw-sessions history ${word}`));
      expect(starts() - started).toBe(words.length); // fromTool's alone
    };
    // Keys fish matches in another case, by a substring, by a subsequence.
    await addKeys(["agent:main:Telegram:direct:7", "AGENT:MAIN:telegram:direct:8", "agent:main:tele-x", "agent:main:te", "agent:main:xs"]);
    sameAsTool([
      "",
      "agent:main:t",
      "agent:main:T",
      "AGENT:",
      "agent:main:te",
      "agent:main:s",
      "tele",
      "Tele",
      "main:",
      "zz",
      "agent:main:t*",
    ]);
    expect(tab("openclaw-sessions history agent:main:t")).toEqual([
      "AGENT:MAIN:telegram:direct:8",
      "agent:main:Telegram:direct:7",
      "agent:main:te",
      "agent:main:tele-x",
      "agent:main:telegram:direct:424242",
    ]);
    // Keys in other than ASCII: fish's icase takes \u0130 for an i, PCRE2 does not.
    await addKeys(["agent:main:\u0130x", "agent:main:ix", "agent:main:t\u00e9l\u00e9:9"]);
    sameAsTool(["agent:main:i", "agent:main:t", "agent:main:t\u00e9", "tele"]);
    expect(tab("openclaw-sessions history agent:main:i")).toEqual(["agent:main:ix", "agent:main:\u0130x"]);
  });

  it("a damaged proof is never trusted, and says nothing", async () => {
    const { dir, tab, starts, proofFile } = setUp();
    await pastRacyWindow();
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    const file = proofFile();
    const text = fs.readFileSync(file, "utf8");
    const lines = text.split("\n");
    // A count that is no number (a command substitution, which fish would run were it evaluated).
    const marker = path.join(dir, "ran");
    fs.writeFileSync(file, [lines[0], `(touch ${marker})`, ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    expect(fs.existsSync(marker)).toBe(false);
    expect(starts()).toBe(2);
    // A count past what the shell's arithmetic holds: said nowhere (tab() sees stderr empty), asked of the tool.
    fs.writeFileSync(file, [lines[0], "9".repeat(30), ...lines.slice(2)].join("\n"));
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    expect(starts()).toBe(3);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    // Cut inside its last key: every count still holds, but the key is not whole.
    fs.writeFileSync(file, text.slice(0, -5));
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    expect(starts()).toBe(4);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(tab("openclaw-sessions history agent:main:")).toEqual(keys);
    expect(starts()).toBe(4);
  });
});

describe("completion in zsh and fish themselves", () => {
  const stateDir = path.join(scenarioDir("files", "reset-chain"), "state");
  const scripts: string[] = [];
  afterAll(() => {
    for (const d of scripts.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const scriptFile = async (shell: string) => {
    const dir = tempDir("ocs-comp-");
    scripts.push(dir);
    const file = path.join(dir, `c.${shell}`);
    fs.writeFileSync(file, (await cli(["completion", shell])).stdout);
    return file;
  };

  it.skipIf(!hasShell("zsh"))("zsh parses its script", async () => {
    const r = spawnSync("zsh", ["-n", await scriptFile("zsh")], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });

  it.skipIf(!hasShell("zsh"))("zsh gets every description whole: apostrophes and colons kept", async () => {
    // zsh itself reads the script's quoting; _arguments and _describe are stubbed to print what they receive.
    const probe = `compdef() { :; }
source ${JSON.stringify(await scriptFile("zsh"))}
_arguments() { if [[ $1 == -C ]]; then state=$MODE; return 0; fi; shift; print -rl -- "$@"; }
_describe() { print -rl -- "\${(@P)2}"; }
MODE=command; words=(openclaw-sessions); _openclaw_sessions
MODE=args; words=(ls); _openclaw_sessions`;
    const r = spawnSync("zsh", ["-f", "-c", probe], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContain("ls:index a store: every key, its active transcript and archives, and the files no key owns");
    expect(lines).toContain(
      "--channel[only keys of this channel: the key's third part (telegram in agent:main:telegram:direct:42)]:only: ",
    );
    expect(lines.find((l) => l.startsWith("--absolute["))).toContain("(2026-07-01 09:15:21)");
  });

  it.skipIf(!hasShell("fish"))("fish completes keys after agent:main:, --format values and --state-dir paths", async () => {
    const file = await scriptFile("fish");
    const shim = shimDir();
    scripts.push(shim);
    const complete = (line: string) => {
      const r = spawnSync("fish", ["--no-config", "-c", `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`], {
        encoding: "utf8",
        env: { PATH: `${shim}:${process.env.PATH}`, OPENCLAW_STATE_DIR: stateDir, HOME: homeNotMade() },
      });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("\t")[0]);
    };
    expect(complete("openclaw-sessions history agent:main:")).toEqual(["agent:main:main", "agent:main:telegram:direct:424242"]);
    expect(complete("openclaw-sessions export k --format ")).toEqual(["html", "jsonl", "md"]);
    expect(complete(`openclaw-sessions ls --state-dir ${path.join(ROOT, "fixtures", "corp")}`)).toEqual([
      `${path.join(ROOT, "fixtures", "corpus")}/`,
    ]);
  });
});
