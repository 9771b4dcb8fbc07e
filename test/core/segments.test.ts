import path from "node:path";
import { describe, expect, it } from "vitest";
import { segmentsOf } from "../../src/core/segments.js";
import { scenarioDir } from "../helpers/corpus.js";
import { storeContext } from "../helpers/store-context.js";
import { homeNotMade } from "../helpers/temp.js";

async function record(scenario: string, key: string) {
  const { session } = storeContext({ env: { HOME: homeNotMade() }, cwd: "/" });
  const [index] = await session.indexes({ stateDir: path.join(scenarioDir("files", scenario), "state") });
  return index!.sessions.find((s) => s.sessionKey === key)!;
}

describe("segmentsOf", () => {
  it("chains a key's reset archives oldest first, then the active transcript", async () => {
    const segs = segmentsOf(await record("reset-chain", "agent:main:telegram:direct:424242"));
    expect(segs.map((s) => s.sessionId)).toEqual([
      "0342c95c-d172-4bd1-ab96-c248789bc645",
      "998635a2-5338-4ec7-bf4f-ba73a726d208",
      "9648af9a-0de1-40ec-bd5a-136426cbdd39",
      "f1091dc4-aaaf-4980-b920-36af23252a48",
    ]);
    expect(segs.map((s) => s.source)).toEqual(["archive", "archive", "archive", "active"]);
  });
  it("reads .bak trims before the live file, each told to omit what a later transcript of its id holds", async () => {
    const s = await record("manual-compact-bak", "agent:main:main");
    const segs = segmentsOf(s);
    expect(segs.map((x) => x.archive?.reason ?? x.source)).toEqual(["bak", "bak", "active"]);
    expect(segs.map((x) => x.trimmed === true)).toEqual([true, true, false]);
    const omit = (i: number) =>
      segs[i]!.ref.kind === "file" ? (segs[i]!.ref as { omitIdsOf?: Array<{ path: string }> }).omitIdsOf?.map((r) => r.path) : undefined;
    expect(omit(0)).toEqual([segs[1]!.path, segs[2]!.path]);
    expect(omit(1)).toEqual([segs[2]!.path]);
    expect(segmentsOf(s, { excludeBak: true }).map((x) => x.source)).toEqual(["active"]);
  });
});
