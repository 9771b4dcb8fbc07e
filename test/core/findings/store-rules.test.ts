/**
 * The clock-bound facts of a store (core/findings/store-rules.ts clockFactsOf), from the index of a
 * corpus store: kept with a `check` answer, and judged against the clock by every later run.
 */
import { describe, expect, it } from "vitest";
import { byText } from "../../../src/core/order.js";
import { clockFactsOf } from "../../../src/core/findings/store-rules.js";
import { retentionPolicy } from "../../../src/core/findings/retention.js";
import { openStoreSession } from "../../../src/store/session.js";
import { copyState } from "../../helpers/corpus.js";

describe("clockFactsOf", () => {
  it("lists the archives by path, the order the findings made of them sort in: a run merges those findings in, with no sort of its own", async () => {
    const { stateDir, home } = copyState("files", "artifact-zoo");
    const session = openStoreSession({ env: { HOME: home }, cwd: stateDir });
    try {
      const [index] = await session.indexes({ stateDir });
      const facts = clockFactsOf(index!, retentionPolicy({}, "files"));
      for (const list of [facts.archives, facts.orphanArchives]) {
        const paths = list.map((a) => a.path);
        expect(paths).toEqual([...paths].sort(byText));
      }
      // Key by key (as the index lists them), this store's archives are not in path order.
      const keyByKey = index!.sessions
        .flatMap((s) => s.archives.map((a) => a.path))
        .filter((p) => facts.archives.some((a) => a.path === p));
      expect(keyByKey).not.toEqual(facts.archives.map((a) => a.path));
      expect(facts.archives.length).toBeGreaterThan(2);
    } finally {
      session.close();
    }
  });
});
