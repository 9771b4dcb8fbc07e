/** Every line as written, parsed, with its place in the tree. */
import { parseLine, type ParsedRecord } from "./parse.js";
import { scanTranscript, type OpenLines, type ScanResult } from "./scan.js";

export interface RawViewLine {
  record: ParsedRecord;
  /** Tree node index of a canonical entry; absent for the header, leaf rows and problems. */
  node?: number;
  /** null when the line is not a tree entry. */
  onActiveBranch: boolean | null;
}

/** Streams every line (two passes: the first builds the tree). Holds one line at a time. */
export async function* rawView(open: OpenLines, opts: { scan?: ScanResult } = {}): AsyncGenerator<RawViewLine> {
  const scan = opts.scan ?? (await scanTranscript(open));
  const { nodes, path } = scan.tree;
  let k = 0;
  for await (const line of open()) {
    const record = parseLine(line);
    while (k < nodes.length && nodes.lineNoOf(k) < line.lineNo) k++;
    if (k < nodes.length && nodes.lineNoOf(k) === line.lineNo && record.kind === "entry") {
      yield { record, node: k, onActiveBranch: path.has(k) };
    } else {
      yield { record, onActiveBranch: null };
    }
  }
}
