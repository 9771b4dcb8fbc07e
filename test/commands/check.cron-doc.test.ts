/**
 * docs/cron.md's command lines, run verbatim through sh on a clean store and on one with findings.
 * What is substituted, and why (the page says so too): the five schedule fields of a crontab line
 * are dropped; `openclaw-sessions` on PATH is the built CLI; `mail` and `logger` are stand-ins that
 * write what they got under $HOME (a test must not send mail or write the system log);
 * OPENCLAW_STATE_DIR and HOME point at a copy of the store. `jq` is the real one.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/built-cli.js";
import { copyState, ROOT } from "../helpers/corpus.js";
import { tempDir } from "../helpers/temp.js";

/** Every command line of the page's cron and sh code blocks (comments and blank lines left out). */
function docLines(): { cron: string[]; sh: string[] } {
  const doc = fs.readFileSync(path.join(ROOT, "docs/cron.md"), "utf8");
  const out = { cron: [] as string[], sh: [] as string[] };
  for (const m of doc.matchAll(/^```(cron|sh)\n([\s\S]*?)^```/gm)) {
    const lines = m[2]!.split("\n").filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
    out[m[1] as "cron" | "sh"].push(...lines);
  }
  return out;
}

const CRON_FIELDS = /^\s*(\S+\s+){5}/;
const hasJq = spawnSync("jq", ["--version"]).status === 0;

let bin = "";
beforeAll(() => {
  bin = tempDir("ocs-cron-bin-");
  const shim = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  shim("openclaw-sessions", `exec '${process.execPath}' '${BIN}' "$@"`);
  shim("mail", `{ echo "mail $*"; cat; } >> "$HOME/mail.log"`);
  shim("logger", `echo "logger $*" >> "$HOME/logger.log"`);
});

function storeOf(kind: "clean" | "findings"): { stateDir: string; home: string } {
  if (kind === "findings") return copyState("files", "orphans"); // ORPHAN_TRANSCRIPT errors, found by --fast too
  const root = tempDir("ocs-cron-clean-");
  fs.cpSync(path.join(ROOT, "fixtures/check-clean/files/random-101/state"), path.join(root, "state"), { recursive: true });
  fs.mkdirSync(path.join(root, "home"));
  return { stateDir: path.join(root, "state"), home: path.join(root, "home") };
}

function sh(line: string, s: { stateDir: string; home: string }) {
  const r = spawnSync("sh", ["-c", line], {
    encoding: "utf8",
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: s.home, OPENCLAW_STATE_DIR: s.stateDir, NO_COLOR: "1", TZ: "UTC" },
  });
  const read = (f: string) => (fs.existsSync(path.join(s.home, f)) ? fs.readFileSync(path.join(s.home, f), "utf8") : "");
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, mail: read("mail.log"), logger: read("logger.log") };
}

describe("docs/cron.md's command lines, verbatim", () => {
  const { cron, sh: shLines } = docLines();
  const [nightly, fast] = cron.map((l) => l.replace(CRON_FIELDS, ""));

  it("the page has the two crontab lines and the jq filters this test knows", () => {
    expect(cron).toHaveLength(2);
    expect(nightly).toMatch(/^openclaw-sessions check --all-agents --json > .* \|\| mail /);
    expect(fast).toMatch(/^openclaw-sessions check .*--quiet.* \|\| logger /);
    expect(shLines.length).toBeGreaterThanOrEqual(3);
    expect(shLines.every((l) => l.startsWith("openclaw-sessions check --json | jq "))).toBe(true);
  });

  it("on a clean store: no mail, no log line, nothing printed", () => {
    const s = storeOf("clean");
    const a = sh(nightly!, s);
    expect([a.code, a.stdout, a.stderr, a.mail]).toEqual([0, "", "", ""]);
    expect(JSON.parse(fs.readFileSync(path.join(s.home, ".openclaw-check.json"), "utf8"))).toMatchObject({ summary: { error: 0 } });
    const b = sh(fast!, s);
    expect([b.code, b.stdout, b.stderr, b.logger]).toEqual([0, "", "", ""]);
  });

  it("on a store with findings: the JSON is mailed, the quiet line logs one line and prints nothing", () => {
    const s = storeOf("findings");
    const a = sh(nightly!, s);
    expect(a.code).toBe(0); // mail's status: the line as a whole succeeded in telling someone
    expect(a.mail.split("\n")[0]).toBe(`mail -s openclaw-sessions check you@example.org`);
    expect(JSON.parse(a.mail.slice(a.mail.indexOf("\n") + 1))).toMatchObject({ status: "problems" });
    expect(a.stdout).toBe("");
    const b = sh(fast!, s);
    expect([b.code, b.stdout, b.stderr, b.logger]).toEqual([0, "", "", "logger -t openclaw-check store problems\n"]);
    // The quiet check alone: exit 1, and not a byte on either stream.
    const alone = sh(fast!.replace(/ >\/dev\/null \|\|.*$/, ""), s);
    expect([alone.code, alone.stdout, alone.stderr]).toEqual([1, "", ""]);
  });

  it.skipIf(!hasJq)("the jq filters run on both stores", () => {
    const findings = storeOf("findings");
    const clean = storeOf("clean");
    const [errors, pruned, counts] = shLines;
    expect(sh(errors!, findings)).toMatchObject({ code: 0, stdout: "ORPHAN_TRANSCRIPT\nORPHAN_TRANSCRIPT\n" });
    expect(sh(errors!, clean)).toMatchObject({ code: 0, stdout: "" });
    expect(sh(pruned!, findings)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^-?\d+d {2}\S+\.reset\./m) });
    expect(JSON.parse(sh(counts!, findings).stdout)).toMatchObject({ ORPHAN_TRANSCRIPT: 2 });
    expect(sh(counts!, clean).code).toBe(0);
  });
});
