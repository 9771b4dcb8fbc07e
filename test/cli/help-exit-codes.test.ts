/** What exit 4 means, said the same way by --help, the README and docs/exit-codes.md (the reference). */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT } from "../helpers/corpus.js";

const row = (file: string) =>
  fs
    .readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .find((l) => l.startsWith("| 4 |"))!;

describe("exit 4", () => {
  it("--help and the README name what docs/exit-codes.md names: restore on an unverified schema, verify-import on a file store", async () => {
    const help = (await cli(["--help"])).stdout.split("\n").find((l) => /^\s+4\s/.test(l))!;
    for (const text of [row("docs/exit-codes.md"), row("README.md"), help]) {
      expect(text).toMatch(/unsupported layout/);
      expect(text).toMatch(/restore.*schema/);
      expect(text).toMatch(/verify-import.*file-backed store/);
      expect(text).not.toMatch(/write against a SQLite-era store/);
    }
  });
});
