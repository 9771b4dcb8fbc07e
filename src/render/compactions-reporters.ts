/**
 * The formats of `compactions`, streamed one key at a time: text, or one JSON document written as
 * it goes (`{schemaVersion, stores, keys: [...], summary}`), so every key of a big store is listed
 * in constant memory.
 */
import { COMPACTIONS_SCHEMA_VERSION, type CompactionsSummary, type KeyCompactions } from "../commands/compactions.js";
import type { StoreHeader } from "../commands/store-header.js";
import type { StreamReporter } from "./reporter.js";
import type { TextContext } from "./common.js";

export type CompactionsReporter = StreamReporter<StoreHeader[], KeyCompactions, CompactionsSummary>;

/** A value as it sits inside the document's `keys` array (two-space indent, as every --json document). */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${" ".repeat(depth)}`);
}

function jsonReporter(): CompactionsReporter {
  let first = true;
  return {
    begin: (stores) => `{\n  "schemaVersion": ${COMPACTIONS_SCHEMA_VERSION},\n  "stores": ${indented(stores, 2)},\n  "keys": [`,
    item(key) {
      const sep = first ? "\n" : ",\n";
      first = false;
      return `${sep}    ${indented(key, 4)}`;
    },
    end: (summary) => `${first ? "" : "\n  "}],\n  "summary": ${indented(summary, 2)}\n}\n`,
  };
}

async function textReporter(ctx: TextContext, all: boolean): Promise<CompactionsReporter> {
  const { renderCompactionsSummaryText, renderKeyCompactionsText } = await import("./compactions-text.js");
  let base = "";
  return {
    begin: (stores) => {
      base = stores[0]?.sessionsDir ?? "";
      return "";
    },
    item: (key) => renderKeyCompactionsText(key, base, ctx, all),
    end: (summary) => (all ? renderCompactionsSummaryText(summary, ctx) : ""),
  };
}

export const COMPACTIONS_REPORTERS = {
  json: async (): Promise<CompactionsReporter> => jsonReporter(),
  /** `all`: every key (keys without compactions left out, a closing count). */
  text: (ctx: TextContext, all: boolean): Promise<CompactionsReporter> => textReporter(ctx, all),
};
