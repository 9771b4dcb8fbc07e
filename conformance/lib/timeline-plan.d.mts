/** Types of timeline-plan.mjs, for the suite's TypeScript. */
/** A step of a random plan (lib/store-plan.mjs) as the writer logged it, with OpenClaw's answer. */
export interface PlanStep {
  op: string;
  key: string;
  text?: string;
  result?: { sessionId?: string; previousSessionId?: string; isNewSession?: boolean } | null;
}

export function timelineFollowsPlan(
  run: (args: string[]) => Promise<unknown>,
  log: readonly PlanStep[],
  key: string,
  hasTranscript: (id: string) => boolean,
  where: (what: string) => string,
): Promise<{ sessions: number; reasons: number; compactions: number }>;

export function transcriptTest(era: "files" | "sqlite", log: readonly PlanStep[], sessionsDir: string | null): (id: string) => boolean;
