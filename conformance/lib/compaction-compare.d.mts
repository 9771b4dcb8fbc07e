/** Types of compaction-compare.mjs, for the suite's TypeScript. */
export interface OracleAnswer {
  transcripts: Array<{
    file?: string;
    window?: { agentId: string; sessionKey: string; sessionId: string };
    compactions: Array<{ entryId: string; summary: string; lost: Array<{ id: string; role: string }> }>;
  }>;
}

export function compareWithOracle(a: {
  cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  stateDir: string;
  oracle: OracleAnswer;
  expectFlag?: (entryId: string, summary: string) => { code: string; fallback?: string } | null;
}): Promise<{ compactions: number; trims: number; flagged: Record<string, number>; problems: string[] }>;
