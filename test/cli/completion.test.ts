import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT, scenarioDir } from "../helpers/corpus.js";

/** A PATH entry with an `openclaw-sessions` that runs this checkout's source. */
function shimDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ocs-shim-"));
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
      expect(r.stdout).toContain("__complete keys");
      expect(r.stdout).not.toContain("__complete)"); // the hidden command is not offered
    }
    expect((await cli(["completion", "tcsh"])).code).toBe(2);
  });

  it("bash completes commands, flags and the session keys of the current store", async () => {
    const script = (await cli(["completion", "bash"])).stdout;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ocs-comp-")), "c.bash");
    fs.writeFileSync(file, script);
    const env = {
      PATH: `${shimDir()}:${process.env.PATH}`,
      OPENCLAW_STATE_DIR: path.join(scenarioDir("files", "reset-chain"), "state"),
      HOME: "/nonexistent-home",
    };
    const complete = (words: string[]) => {
      const r = spawnSync(
        "bash",
        ["-c", `source "${file}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _openclaw_sessions; printf '%s\\n' "\${COMPREPLY[@]}"`],
        { env, encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      return r.stdout.trim().split("\n").filter(Boolean);
    };
    expect(complete(["openclaw-sessions", "l"])).toEqual(["ls"]);
    expect(complete(["openclaw-sessions", "ls", "--all"])).toEqual(["--all-agents"]);
    expect(complete(["openclaw-sessions", "ls", "agent"])).toEqual(["agent:main:main", "agent:main:telegram:direct:424242"]);
    // bash splits words at ":"; the script completes the whole key and trims the shown part
    expect(complete(["openclaw-sessions", "ls", "agent", ":", "main", ":", "t"])).toEqual(["telegram:direct:424242"]);
  });
});
