/** The flags of `history` as commander parses them: shared by its wiring and its (lazily loaded) run. */
import type { CommonOptions } from "../options.js";

export interface HistoryFlags extends CommonOptions {
  file?: string;
  sessionId?: string;
  archived?: boolean;
  /** `--vault [dir]`: with --archived, what only the vault (snapshot) still holds; true: the default vault. */
  vault?: string | true;
  segment?: number;
  allBranches?: boolean;
  raw?: boolean;
  context?: boolean;
  tail?: number;
  limit?: number;
  since?: string;
  until?: string;
  role?: string[];
  tools?: boolean;
  thinking?: boolean;
  jsonl?: boolean;
  markdown?: boolean;
  around?: number;
  contextMessages?: number;
}
