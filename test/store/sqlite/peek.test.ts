/**
 * What `ls` shows of a lost conversation in a SQLite store: a deleted window, a deleted `.zst`
 * archive (its published file, or only its row), with the first user message and the last time,
 * as it shows them for a file-era archive.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { runLs } from "../../../src/commands/ls.js";
import { copyState } from "../../helpers/corpus.js";
import { storeContext } from "../../helpers/store-context.js";

const lsOf = (stateDir: string, home: string) => runLs({ stateDir }, storeContext({ env: { HOME: home }, cwd: "/" }));

describe("peeks at what a SQLite store holds and no key owns", () => {
  it("a deleted window and a deleted .zst archive: first user message, first and last time", async () => {
    const { stateDir, home } = copyState("sqlite", "sqlite-deleted");
    const r = await lsOf(stateDir, home);
    const window = r.unattributed.find((u) => u.kind === "sqlite")!;
    expect(window).toMatchObject({
      preview: "throwaway question",
      headerId: window.sessionId,
      firstTimestamp: "2026-11-30T01:45:35.526Z",
      lastTimestamp: "2026-11-30T01:45:36.853Z",
    });
    const zst = r.unattributed.find((u) => u.path.endsWith(".zst"))!;
    const want = {
      preview: "Which receipts do I need to keep for 2026?",
      headerId: "896b0937-ca5a-49f5-a00e-8de023b7a034",
      firstTimestamp: "2026-11-30T01:45:27.312Z",
      lastTimestamp: "2026-11-30T01:45:33.590Z",
    };
    expect(zst).toMatchObject(want);
    // The published file gone: the archive row's blob says the same.
    fs.rmSync(zst.path);
    const rowOnly = (await lsOf(stateDir, home)).unattributed.find((u) => u.kind === "archive")!;
    expect(rowOnly.path).toContain("#archive/");
    expect(rowOnly).toMatchObject(want);
  });

  it("a deleted .zst archive in a file-era store", async () => {
    const { stateDir, home } = copyState("files", "deleted-keys");
    const sessions = path.join(stateDir, "agents/main/sessions");
    const name = fs.readdirSync(sessions).find((n) => n.includes(".jsonl.deleted."))!;
    const plain = path.join(sessions, name);
    fs.writeFileSync(`${plain}.zst`, zlib.zstdCompressSync(fs.readFileSync(plain)));
    const before = (await lsOf(stateDir, home)).unattributed.find((u) => u.path === plain)!;
    fs.rmSync(plain);
    const zst = (await lsOf(stateDir, home)).unattributed.find((u) => u.path === `${plain}.zst`)!;
    expect(zst.preview).toBe("channel chatter");
    expect(zst).toMatchObject({ preview: before.preview, firstTimestamp: before.firstTimestamp, lastTimestamp: before.lastTimestamp });
  });
});
