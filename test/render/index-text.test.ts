/** `index --list` and `--prune` as text: a line per index, what its store's state is, then what pruning did or would do. */
import { describe, expect, it } from "vitest";
import type { IndexListResult, ListedIndex } from "../../src/commands/index-cache.js";
import { renderIndexText } from "../../src/render/index-text.js";
import { makeStyle } from "../../src/render/style.js";

const style = makeStyle(0);
const DIR = "/home/ana/.cache/openclaw-sessions/index";
// 2026-12-01T17:42:49Z and the text table a second later.
const MADE = 1796146969000;

function listed(storeRoot: string | null, store: ListedIndex["store"], name: string): ListedIndex {
  const at = storeRoot === null ? null : MADE;
  return {
    path: `${DIR}/${name}.sqlite`,
    storeRoot,
    store,
    bytes: 278528,
    createdAt: at,
    createdAtIso: null,
    textBuiltAt: at === null ? null : at + 1000,
    textBuiltAtIso: null,
  };
}

const indexes = [
  listed(null, "unknown", "0000"),
  listed("/home/ana/.openclaw", "present", "aaaa"),
  listed("/home/ana/old\u001b[31m-openclaw", "gone", "bbbb"),
  listed("/mnt/usb/openclaw", "unknown", "cccc"),
];

function result(over: Partial<IndexListResult>): IndexListResult {
  return { schemaVersion: 1, action: "listed", indexDir: DIR, indexes, removed: null, ...over };
}

describe("renderIndexText, --list and --prune", () => {
  it("lists each index with its store's state; one whose store is gone says how to forget it; a root's control characters made safe", () => {
    expect(renderIndexText(result({}), style, "UTC")).toBe(
      [
        `4 indexes in ${DIR} (1.1 MiB):`,
        `  ${DIR}/0000.sqlite: not an index this tool can read (272 KiB); left as it is`,
        "  /home/ana/.openclaw: 272 KiB, made 2026-12-01 17:42:49, text table built 2026-12-01 17:42:50",
        "  /home/ana/old^[[31m-openclaw (store gone): 272 KiB, made 2026-12-01 17:42:49, text table built 2026-12-01 17:42:50",
        "  /mnt/usb/openclaw (store cannot be looked at): 272 KiB, made 2026-12-01 17:42:49, text table built 2026-12-01 17:42:50",
        "1 index of a store that is gone: `openclaw-sessions index --prune` forgets it",
        "",
      ].join("\n"),
    );
  });

  it("--prune says how many it forgot and how many paths went; with none gone, that nothing was", () => {
    const removed = [`${DIR}/bbbb.sqlite`, `${DIR}/bbbb.sqlite-wal`, `${DIR}/bbbb.answers`];
    const pruned = renderIndexText(result({ action: "pruned", removed }), style, "UTC").split("\n");
    expect(pruned.at(-2)).toBe("forgot 1 index of a store that is gone: 3 paths removed (--json lists them)");
    const none = result({ action: "pruned", indexes: [indexes[1]!], removed: [] });
    expect(renderIndexText(none, style, "UTC")).toBe(
      [
        `1 index in ${DIR} (272 KiB):`,
        "  /home/ana/.openclaw: 272 KiB, made 2026-12-01 17:42:49, text table built 2026-12-01 17:42:50",
        "no store of these is gone: nothing to forget",
        "",
      ].join("\n"),
    );
    expect(renderIndexText(result({ indexes: [] }), style, "UTC")).toBe(`no index in ${DIR}\n`);
  });
});
