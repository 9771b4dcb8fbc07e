/** The flags of `history` as commander parses them: shared by its wiring and its (lazily loaded) run. */
import type { CommonOptions } from "../options.js";
import type { SliceFlags } from "./slice-options.js";

export interface HistoryFlags extends CommonOptions, SliceFlags {
  file?: string;
  sessionId?: string;
  archived?: boolean;
  /** `--vault [dir]`: with --archived, what only the vault (snapshot) still holds; true: the default vault. */
  vault?: string | true;
  allBranches?: boolean;
  raw?: boolean;
  context?: boolean;
  role?: string[];
  tools?: boolean;
  thinking?: boolean;
  jsonl?: boolean;
  markdown?: boolean;
  around?: number;
  contextMessages?: number;
}
