/**
 * `compactions` against OpenClaw's context builder on one state dir (issue 30): the answer of
 * `compaction-oracle.mjs` (what buildSessionContext returned just before each compaction and no
 * longer returns just after it) beside what the tool lists and shows. Used by
 * `conformance/checks/compactions.mjs` (fresh stores, OpenClaw run live) and by the suite
 * (`test/commands/compactions.oracle.test.ts`, the committed fixtures and their expected.json).
 *
 * For every compaction row the tool lists: OpenClaw's branch of that transcript holds it, and the
 * span `compactions <key> --show <n>` prints is, entry for entry and in order, the messages OpenClaw
 * lost (the previous summary first, as OpenClaw's context has it); SPAN_WITHOUT_USER is set exactly
 * when none of them is a user message; the summary flags are the ones `expectFlag` names (default:
 * none). Every compaction on OpenClaw's branch of a transcript the tool lists from is listed.
 */
import path from "node:path";

/** The oracle's transcript for a path the tool printed (a file under the state dir, or `<db>#<sessionId>`). */
function oracleTranscript(oracle, stateDir, p) {
  const hash = p.lastIndexOf("#");
  if (p.endsWith(".sqlite", hash) || (hash > 0 && p.slice(0, hash).endsWith(".sqlite"))) {
    const sessionId = p.slice(hash + 1);
    return oracle.transcripts.find((t) => t.window?.sessionId === sessionId) ?? null;
  }
  const rel = path.relative(stateDir, p);
  return oracle.transcripts.find((t) => t.file === rel) ?? null;
}

/**
 * @param {object} a
 * @param {(args: string[]) => Promise<{code: number, stdout: string, stderr: string}>} a.cli
 * @param {string} a.stateDir  the copy the tool reads
 * @param {{transcripts: Array<{file?: string, window?: {sessionId: string}, compactions: Array<{entryId: string, summary: string, lost: Array<{id: string, role: string}>}>}>}} a.oracle
 * @param {(entryId: string, summary: string) => {code: string, fallback?: string} | null} [a.expectFlag]
 * @returns {Promise<{compactions: number, trims: number, flagged: Record<string, number>, problems: string[]}>}
 */
export async function compareWithOracle({ cli, stateDir, oracle, expectFlag = () => null }) {
  const problems = [];
  const flagged = {};
  const list = await cli(["compactions", "--all-agents", "--json", "--state-dir", stateDir]);
  // Exit 3 prints a complete document and names the files it could not read (a damaged corpus archive).
  if (list.code !== 0 && list.code !== 3)
    return { compactions: 0, trims: 0, flagged, problems: [`compactions exited ${list.code}: ${list.stderr.trim()}`] };
  const doc = JSON.parse(list.stdout);
  let compared = 0;
  let trims = 0;
  for (const key of doc.keys) {
    const listedIds = new Set(key.compactions.filter((c) => c.kind === "compaction").map((c) => c.entryId));
    const readFrom = new Set();
    for (const c of key.compactions) {
      for (const f of c.flags) flagged[f.code] = (flagged[f.code] ?? 0) + 1;
      const at = `${key.sessionKey} #${c.number}`;
      if (c.kind === "trim") {
        trims += 1;
        const flagged = c.flags.some((f) => f.code === "TRIM_ONLY_IN_BAK" && f.bak === c.path);
        if (flagged !== c.removedMessages > 0)
          problems.push(`${at}: a trim that removed ${c.removedMessages} messages, TRIM_ONLY_IN_BAK ${flagged ? "set" : "missing"}`);
        continue;
      }
      // The span is read from the earliest copy of the row (`spanFrom`: a trim's .bak), as it was when it compacted.
      const t = oracleTranscript(oracle, stateDir, c.spanFrom?.path ?? c.path);
      const oc = t?.compactions.find((x) => x.entryId === c.entryId);
      if (!oc) {
        problems.push(`${at}: ${c.entryId} in ${c.path} is on no branch OpenClaw builds`);
        continue;
      }
      readFrom.add(t);
      const shown = await cli([
        "compactions",
        key.sessionKey,
        "--show",
        String(c.number),
        "--json",
        "--state-dir",
        stateDir,
        "--agent",
        key.agentId,
      ]);
      const span = JSON.parse(shown.stdout).keys[0].compactions[c.number - 1].span ?? [];
      const ours = span.map((i) => i.entryId);
      const theirs = oc.lost.map((m) => m.id);
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        problems.push(`${at} (${c.entryId}): span ${JSON.stringify(ours)}, OpenClaw lost ${JSON.stringify(theirs)}`);
      const counted = c.lost.messages + (c.lost.previousSummary ? 1 : 0);
      if (counted !== theirs.length) problems.push(`${at}: lost counts ${counted} items, OpenClaw ${theirs.length}`);
      const noUser = !oc.lost.some((m) => m.role === "user");
      if (noUser !== c.flags.some((f) => f.code === "SPAN_WITHOUT_USER"))
        problems.push(
          `${at}: SPAN_WITHOUT_USER ${noUser ? "missing" : "set"} (OpenClaw lost ${oc.lost.map((m) => m.role).join(", ") || "nothing"})`,
        );
      const want = expectFlag(c.entryId, oc.summary);
      const got = c.flags.find((f) => f.code === "SUMMARY_EMPTY" || f.code === "SUMMARY_FALLBACK") ?? null;
      if ((want?.code ?? null) !== (got?.code ?? null) || (want?.fallback ?? null) !== (got?.fallback?.id ?? null))
        problems.push(
          `${at}: summary flag ${got ? `${got.code} ${got.fallback?.id ?? ""}` : "none"}, expected ${want ? `${want.code} ${want.fallback ?? ""}` : "none"}`,
        );
      compared += 1;
    }
    for (const t of readFrom)
      for (const oc of t.compactions)
        if (!listedIds.has(oc.entryId)) problems.push(`${key.sessionKey}: ${oc.entryId} of ${t.file ?? t.window.sessionId} is not listed`);
  }
  return { compactions: compared, trims, flagged, problems };
}
