/**
 * sessions.json read as OpenClaw's loader reads it (its text as UTF-8, JSON.parse of the whole):
 * real files in a temp dir. An ASCII text is decoded as latin1 (a faster string for JSON.parse);
 * any other byte and the text is UTF-8's, so what the loader sees never depends on the shortcut.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readStoreObject } from "../../../src/store/files/store-file.js";
import { tempDir } from "../../helpers/temp.js";

/** The store object read from a sessions.json holding `bytes`. */
function read(bytes: Buffer): ReturnType<typeof readStoreObject> {
  const file = path.join(tempDir("ocs-store-file-"), "sessions.json");
  fs.writeFileSync(file, bytes);
  return readStoreObject(file);
}

/** What OpenClaw's loader makes of the bytes: JSON.parse of their UTF-8 text. */
const asLoaded = (bytes: Buffer) => JSON.parse(bytes.toString("utf8")) as unknown;

describe("readStoreObject", () => {
  it("reads an ASCII store, a store with UTF-8 text in keys and values, and one with bytes that are no UTF-8, as the loader does", () => {
    const entry = { sessionId: "0a0a0a0a-0000-4000-8000-000000000001", updatedAt: 1 };
    const stores = [
      Buffer.from(JSON.stringify({ "agent:main:main": { ...entry, label: "caf\\u00e9 escaped" } }, null, 2)),
      Buffer.from(JSON.stringify({ "agent:main:telegram:group:Café 🍵": { ...entry, label: "café 東京 🍵" } }, null, 2)),
      // 0xe9 alone (latin1's é) and 0xff: not UTF-8, each the replacement character to the loader.
      Buffer.concat([
        Buffer.from('{"agent:main:main":{"sessionId":"0a0a0a0a-0000-4000-8000-000000000001","updatedAt":1,"label":"caf'),
        Buffer.from([0xe9, 0xff]),
        Buffer.from('"}}'),
      ]),
    ];
    for (const bytes of stores) {
      const got = read(bytes);
      expect("store" in got ? got.store : got).toEqual(asLoaded(bytes));
    }
    const latin1 = read(stores[2]!);
    expect("store" in latin1 && (latin1.store["agent:main:main"] as { label: string }).label).toBe("caf\ufffd\ufffd");
  });

  it("names a UTF-8 byte-order mark invalid JSON, as JSON.parse of the loader's text does", () => {
    const got = read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"agent:main:main":{}}')]));
    expect(got).toMatchObject({ status: { state: "invalid-json" } });
  });
});
