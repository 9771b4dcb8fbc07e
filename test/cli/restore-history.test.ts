/** Issue 5 end to end: after `restore --yes`, `history <key>` (OpenClaw's rule) reads the archive. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";

const KEY = "agent:main:telegram:direct:424242";
const ARCHIVE = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";

describe("restore then history", () => {
  it("history shows the restored archive's messages, ls shows the former transcript as an archive, undo restores every byte", async () => {
    const { stateDir, root } = copyState("files", "reset-chain");
    const s = ["--state-dir", stateDir];
    const before = hashTree(stateDir);
    const archiveMessages = (await cli(["history", "--file", ARCHIVE, "--json", ...s]))
      .json()
      .messages.map((m: { role: string; text: string }) => [m.role, m.text]);
    expect(archiveMessages.length).toBeGreaterThan(0);

    const applied = await cli(["restore", ARCHIVE, "--yes", "--json", "--manifest-dir", path.join(root, "runs"), ...s]);
    expect(applied.code).toBe(0);
    const h = (await cli(["history", KEY, "--json", ...s])).json();
    expect(h.source.via).toBe("active");
    expect(h.messages.map((m: { role: string; text: string }) => [m.role, m.text])).toEqual(archiveMessages);
    const ls = (await cli(["ls", KEY, "--json", ...s])).json();
    expect(ls.sessions[0].sessionId).toBe("9648af9a-0de1-40ec-bd5a-136426cbdd39");
    expect(ls.sessions[0].archives.map((a: { path: string }) => path.basename(a.path))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^f1091dc4-aaaf-4980-b920-36af23252a48\.jsonl\.reset\./)]),
    );

    const undo = await cli(["restore", "--undo", applied.json().manifest, "--yes", ...s]);
    expect(undo.code).toBe(0);
    expect(hashTree(stateDir)).toEqual(before);
    expect(fs.existsSync(applied.json().manifest)).toBe(true);
  });
});
