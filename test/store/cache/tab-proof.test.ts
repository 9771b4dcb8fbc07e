import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { keptReads } from "../../../src/store/cache/kept-reads.js";
import {
  forgetTabProofs,
  keptTabKeys,
  statLine,
  tabProofFile,
  tabQuestion,
  TAB_FORMAT,
  TAB_STAT_FORMAT,
} from "../../../src/store/cache/tab-proof.js";
import { writeTabProof } from "../../../src/store/cache/tab-proof-write.js";
import { listDirSync } from "../../../src/store/safe-read.js";
import { noteFile, noteType, startReads, stopReads } from "../../../src/store/read-set.js";
import { pastRacyWindow } from "../../helpers/index-cache.js";
import { tempDir } from "../../helpers/temp.js";

const gnuStat = spawnSync("stat", ["--version"], { encoding: "utf8" }).stdout?.includes("GNU coreutils") ?? false;

/** A store-like tree: a dir of agents, a sessions.json, a bundle stand-in; and the kept reads of a run that read them. */
function readsOf(root: string, settledBefore = Date.now()): Buffer {
  const set = startReads(settledBefore);
  try {
    noteType(root, "s");
    noteType(path.join(root, "absent"), "l");
    listDirSync(path.join(root, "agents"));
    noteFile(path.join(root, "agents/main/sessions/sessions.json"), "l");
  } finally {
    stopReads();
  }
  const text = keptReads(set);
  if (text === null) throw new Error("reads not kept");
  return Buffer.from([...text].join(""));
}

function store(): { root: string; bundle: string; cache: string } {
  const root = tempDir("ocs-tab-store-");
  fs.mkdirSync(path.join(root, "agents/main/sessions"), { recursive: true });
  fs.writeFileSync(path.join(root, "agents/main/sessions/sessions.json"), '{"agent:main:main":{}}');
  const bundle = path.join(root, "bundle.js");
  fs.writeFileSync(bundle, "// bundle");
  return { root, bundle, cache: tempDir("ocs-tab-cache-") };
}

describe("tabQuestion: the question as bash's completion function spells it", () => {
  const cwd = process.cwd();
  it("its working dir as $PWD names it, the store options, the environment the tool reads in name order", () => {
    const env = { PWD: cwd, HOME: "/h", XDG_CACHE_HOME: "/c", OPENCLAW_STATE_DIR: "/s", CLAWDBOT_X: "1", PATH: "/bin", TERM: "x" };
    expect(tabQuestion(["--state-dir", "/s d"], env, cwd)).toBe(
      [
        `cwd=${cwd}`,
        "arg=--state-dir",
        "arg=/s d",
        "env=CLAWDBOT_X=1",
        "env=HOME=/h",
        "env=OPENCLAW_STATE_DIR=/s",
        "env=XDG_CACHE_HOME=/c",
      ].join("\n"),
    );
  });
  it("none where bash could not spell it the same", () => {
    expect(tabQuestion([], { HOME: "/h" }, cwd)).toBeNull(); // no PWD
    expect(tabQuestion([], { HOME: "/h", PWD: "/" }, cwd === "/" ? "/tmp" : cwd)).toBeNull(); // PWD names another dir
    expect(tabQuestion([], { HOME: "/h", PWD: cwd, OPENCLAW_PROFILE: "a\nb" }, cwd)).toBeNull(); // a newline
    expect(tabQuestion([], { PWD: cwd }, cwd)).toBeNull(); // no home dir named: the tool would ask the system
  });
});

describe.runIf(gnuStat)("writeTabProof: the keys, and what proves them to GNU stat and bash's tests", () => {
  it("each path as `stat -c` prints it now, each probe by its kind, then the keys in byte order", async () => {
    const { root, bundle, cache } = store();
    await pastRacyWindow();
    const env = { XDG_CACHE_HOME: cache };
    writeTabProof(env, "cwd=/q", readsOf(root), "b\nB\na\n", bundle);
    const lines = fs.readFileSync(tabProofFile(env, "cwd=/q"), "utf8").split("\n");
    const paths = [bundle, path.join(root, "agents/main/sessions/sessions.json"), path.join(root, "agents")];
    const printed = spawnSync("stat", ["-c", TAB_STAT_FORMAT, "--", ...paths], { encoding: "utf8" })
      .stdout.trimEnd()
      .split("\n");
    expect(lines).toEqual([
      TAB_FORMAT,
      "1",
      "cwd=/q",
      "3",
      ...paths,
      "3",
      ...printed,
      "2",
      `sd ${root}`,
      `l- ${path.join(root, "absent")}`,
      "3",
      "B",
      "a",
      "b",
      "",
    ]);
    expect(fs.statSync(tabProofFile(env, "cwd=/q")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(tabProofFile(env, "cwd=/q"))).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(cache, "openclaw-sessions")).mode & 0o777).toBe(0o700);
  });

  it("keptTabKeys hands back the keys while all the proof names is as it was, as bash's function does", async () => {
    const { root, bundle, cache } = store();
    await pastRacyWindow();
    const env = { XDG_CACHE_HOME: cache };
    writeTabProof(env, "q", readsOf(root), "b\na\n", bundle);
    expect(keptTabKeys(env, "q")).toEqual(["a", "b"]);
    expect(keptTabKeys(env, "Q")).toBeNull(); // another question of the same length
    expect(keptTabKeys({ XDG_CACHE_HOME: path.join(cache, "x") }, "q")).toBeNull();
    fs.writeFileSync(path.join(root, "absent"), ""); // a probe that found nothing finds a file
    expect(keptTabKeys(env, "q")).toBeNull();
    fs.rmSync(path.join(root, "absent"));
    expect(keptTabKeys(env, "q")).toEqual(["a", "b"]);
    // A proof cut inside its last key, or with a line past its last group, is none.
    const file = tabProofFile(env, "q");
    const whole = fs.readFileSync(file);
    for (const damaged of [whole.subarray(0, -1), Buffer.concat([whole, Buffer.from("c\n")])]) {
      fs.writeFileSync(file, damaged);
      expect(keptTabKeys(env, "q")).toBeNull();
    }
    fs.writeFileSync(file, whole);
    expect(keptTabKeys(env, "q")).toEqual(["a", "b"]);
    fs.appendFileSync(bundle, " "); // another build of the tool
    expect(keptTabKeys(env, "q")).toBeNull();
  });

  it("statLine is what GNU stat prints, for a file, a dir and a symlink", () => {
    const { root, bundle } = store();
    const link = path.join(root, "link");
    fs.symlinkSync(bundle, link);
    for (const p of [bundle, root, link]) {
      const printed = spawnSync("stat", ["-c", TAB_STAT_FORMAT, "--", p], { encoding: "utf8" }).stdout.trimEnd();
      expect(statLine(p, fs.lstatSync(p, { bigint: true }))).toBe(printed);
    }
  });

  it("no proof where one read cannot be proven: a file changed since, a dir changed within the racy window, a name with a newline", async () => {
    const { root, bundle, cache } = store();
    const env = { XDG_CACHE_HOME: cache };
    const file = tabProofFile(env, "q");
    // Read by a run that found them settled, but the agents dir changed under RACY_MS ago when the
    // proof looks at it: its stat cannot prove its listing yet.
    writeTabProof(env, "q", readsOf(root, Date.now() + 10_000), "k\n", bundle);
    expect(fs.existsSync(file)).toBe(false);
    await pastRacyWindow();
    const reads = readsOf(root);
    fs.appendFileSync(path.join(root, "agents/main/sessions/sessions.json"), " ");
    writeTabProof(env, "q", reads, "k\n", bundle);
    expect(fs.existsSync(file)).toBe(false);
    // Read by runs that found sessions.json settled (it changed just now, maybe in this very ms).
    const odd = path.join(root, "a\nb");
    fs.writeFileSync(odd, "");
    writeTabProof(env, "q", readsOf(root, Date.now() + 10_000), "k\n", odd);
    expect(fs.existsSync(file)).toBe(false);
    writeTabProof(env, "q", readsOf(root, Date.now() + 10_000), "k\n", bundle);
    expect(fs.existsSync(file)).toBe(true);
  });

  it("index --forget takes the proofs that name the store's paths, and only those", async () => {
    const a = store();
    const b = store();
    const env = { XDG_CACHE_HOME: a.cache };
    await pastRacyWindow();
    writeTabProof(env, "qa", readsOf(a.root), "k\n", a.bundle);
    // Questions of one length share a file (bash finds it by the length): these are two.
    writeTabProof(env, "qbb", readsOf(b.root), "k\n", b.bundle);
    const other = path.join(path.dirname(tabProofFile(env, "q")), "keys-9");
    fs.writeFileSync(other, `not a proof\n1\n${a.root}\n`);
    expect(forgetTabProofs(env, a.root)).toEqual([tabProofFile(env, "qa")]);
    expect(fs.existsSync(tabProofFile(env, "qbb"))).toBe(true);
    expect(fs.existsSync(other)).toBe(true);
    expect(forgetTabProofs(env, path.join(a.root, "nowhere"))).toEqual([]);
  });

  it("keeps the proofs of the 16 questions written last", async () => {
    const { root, bundle, cache } = store();
    await pastRacyWindow();
    const env = { XDG_CACHE_HOME: cache };
    const reads = readsOf(root);
    for (let i = 1; i <= 20; i++) writeTabProof(env, "q".repeat(i), reads, "k\n", bundle);
    const kept = fs.readdirSync(path.dirname(tabProofFile(env, "q"))).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
    expect(kept).toHaveLength(16);
    expect(kept.at(-1)).toBe("keys-20");
  });
});
