/**
 * The one table of finding codes: severity, message template and hint. Codes are stable
 * (UPPER_SNAKE); scripts and docs/cron.md rely on them. Templates use `{name}` placeholders.
 */

export type Severity = "error" | "warn" | "info";

export interface CodeSpec {
  severity: Severity;
  /** Message template, filled with the finding's vars. */
  message: string;
  /** What to do about it (may use the same placeholders). */
  hint: string;
}

export const FINDING_CODES = {
  // ── store file ──────────────────────────────────────────────────────────────
  STORE_UNREADABLE: {
    severity: "error",
    message: "sessions.json cannot be read ({reason}); OpenClaw loads it as an empty store",
    hint: "fix the permissions or the disk; every transcript here is unattributed until then",
  },
  STORE_EMPTY: {
    severity: "error",
    message: "sessions.json is 0 bytes; OpenClaw loads it as an empty store and shows no history for any key",
    hint: "restore it from a backup or a sessions.json.*.tmp / .bak.* copy; `openclaw-sessions ls` lists the transcripts still on disk",
  },
  STORE_INVALID_JSON: {
    severity: "error",
    message: "sessions.json is not valid JSON ({reason}); OpenClaw loads it as an empty store",
    hint: "restore it from a backup or a sessions.json.*.tmp / .bak.* copy before OpenClaw's next write replaces it",
  },
  STORE_NOT_OBJECT: {
    severity: "error",
    message: "sessions.json holds valid JSON that is not an object; OpenClaw loads it as an empty store",
    hint: "restore it from a backup; the transcripts are still on disk",
  },
  STORE_MISSING: {
    severity: "error",
    message: "sessions.json is missing while {count} transcript file(s) are present",
    hint: "restore sessions.json from a backup; until then no key shows these transcripts",
  },
  STORE_MOVED: {
    severity: "info",
    message: "{count} entries store an absolute sessionFile under another root ({root}); OpenClaw still finds <sessionId>.jsonl files here",
    hint: "harmless for <sessionId>.jsonl names; topic, custom and subfolder transcripts are reported separately (SESSION_FILE_OUTSIDE)",
  },
  CONFIG_INVALID: {
    severity: "warn",
    message: "openclaw.json cannot be parsed ({reason}); retention checks use the era defaults",
    hint: "fix openclaw.json; OpenClaw itself refuses or ignores a broken config",
  },
  // ── entries ─────────────────────────────────────────────────────────────────
  ENTRY_DROPPED: {
    severity: "warn",
    message: "entry is dropped by OpenClaw's loader: {reason}",
    hint: "its transcripts are unattributed; fix the entry (or note the sessionId) before OpenClaw rewrites the store without it",
  },
  ENTRY_NORMALIZED: {
    severity: "info",
    message: "OpenClaw's loader changes this entry: {reason}",
    hint: "nothing to do unless the change matters to you; OpenClaw rewrites it on its next store write",
  },
  ACTIVE_MISSING: {
    severity: "error",
    message: "active transcript {file} is missing and no reset archive stands in: OpenClaw shows no history for this key",
    hint: "look for the conversation with `openclaw-sessions ls {key}` (archives, orphans) and restore it",
  },
  SESSION_NOT_STARTED: {
    severity: "info",
    message: "session {sessionId} has not started yet ({how}): OpenClaw writes its transcript with its first message",
    hint: "nothing is lost: OpenClaw shows an empty history until then; `openclaw-sessions history {key} --archived` shows what came before",
  },
  ACTIVE_MISSING_FALLBACK: {
    severity: "warn",
    message: "active transcript {file} is missing; OpenClaw's fallback shows the reset archive {archive} instead",
    hint: "history stops at that archive; anything written after it is gone unless another copy exists",
  },
  SESSION_FILE_OUTSIDE: {
    severity: "warn",
    message:
      "stored sessionFile {stored} points outside this state dir (moved store); OpenClaw will not find it, but {name} is present here",
    hint: "the store was moved or copied; point sessionFile at this dir (OpenClaw's store writer) or move the store back",
  },
  // ── files no key owns ───────────────────────────────────────────────────────
  ORPHAN_TRANSCRIPT: {
    severity: "error",
    message: "transcript belongs to no key ({reason}); it looks like a conversation ({preview})",
    hint: "OpenClaw shows it nowhere and disk-budget maintenance may remove it; keep a copy or re-attach it: {reattach}",
  },
  ORPHAN_TRANSCRIPT_EMPTY: {
    severity: "info",
    message: "transcript belongs to no key ({reason}) and holds no entry: a session header and nothing after it",
    hint: "no conversation is in it (a gateway reset writes such a header before the first message); safe to remove once you no longer need it",
  },
  ORPHAN_TRANSCRIPT_MACHINE: {
    severity: "info",
    message: "{machine} transcript belongs to no key ({reason}; recognised by {via})",
    hint: "usually left behind by a deleted {machine} key; safe to archive once you no longer need it",
  },
  UNATTRIBUTED_ARCHIVE: {
    severity: "warn",
    message: "{reason} archive belongs to no key",
    hint: "the only copy of that conversation; `openclaw-sessions ls` shows its first message",
  },
  // ── retention ───────────────────────────────────────────────────────────────
  ARCHIVE_PRUNE_SOON: {
    severity: "warn",
    message: "{reason} archive will be pruned by OpenClaw's maintenance {when} ({setting} = {retention}, archived {archivedAt})",
    hint: "copy it elsewhere before {dueDate} if you need it, or raise session.maintenance.{setting} in openclaw.json",
  },
  UNATTRIBUTED_ARCHIVE_PRUNE: {
    severity: "warn",
    message:
      "{reason} archive no key owns will be pruned by OpenClaw's maintenance {when} ({setting} = {retention}, archived {archivedAt})",
    hint: "it is the only copy of that conversation: copy it out of the sessions dir before {dueDate} if you need it, or raise session.maintenance.{setting}",
  },
  // ── locks and temp files ────────────────────────────────────────────────────
  LOCK_STALE: {
    severity: "warn",
    message: "stale transcript lock ({reasons}; pid {pid}, created {createdAt})",
    hint: "OpenClaw removes a dead holder's lock at its next write to this transcript (a live holder's lock only once it is released); a line the writer cut is reported as LINE_MALFORMED. This tool never deletes it",
  },
  LOCK_UNREADABLE: {
    severity: "warn",
    message: "transcript lock has no readable payload ({reason})",
    hint: "OpenClaw treats it as stale and removes it at its next write to this transcript; or remove it once no OpenClaw process runs",
  },
  LOCK_LIVE: {
    severity: "info",
    message: "transcript is locked by live pid {pid} since {createdAt}",
    hint: "a Gateway or agent run is writing; `restore` refuses to touch this transcript until the lock is gone",
  },
  TEMP_STALE: {
    severity: "warn",
    message: "stale temp file ({what}), last written {age} ago",
    hint: "left by an interrupted write; it may hold newer data than the file it was meant to replace: compare before removing",
  },
  // ── this tool's own leftovers (restore / undo) ──────────────────────────────
  RESTORE_TEMP_LEFTOVER: {
    severity: "warn",
    message: "temp file of openclaw-sessions restore run {runId} (meant to become {target}), left by an interrupted {what}",
    hint: "{command}",
  },
  RESTORE_INTERRUPTED: {
    severity: "error",
    message: "openclaw-sessions restore run {runId} of {key} {state}",
    hint: "{command}",
  },
  // ── disk ────────────────────────────────────────────────────────────────────
  DISK_OVER_BUDGET: {
    severity: "warn",
    message:
      "sessions dir uses {used}, above maxDiskBytes {max}: OpenClaw's next maintenance removes the oldest archives and unreferenced transcripts down to {highWater}",
    hint: "copy what you need out of the sessions dir, or raise session.maintenance.maxDiskBytes",
  },
  DISK_NEAR_BUDGET: {
    severity: "info",
    message: "sessions dir uses {used}, above highWaterBytes {highWater} (maxDiskBytes {max})",
    hint: "nothing is removed until maxDiskBytes is exceeded",
  },
  // ── transcript bodies ───────────────────────────────────────────────────────
  TRANSCRIPT_UNREADABLE: {
    severity: "error",
    message: "transcript cannot be read past line {line}: {reason}",
    hint: "check the disk and permissions; for .zst files the archive may be cut",
  },
  TRANSCRIPT_EMPTY: {
    severity: "warn",
    message: "transcript is 0 bytes",
    hint: "OpenClaw shows no history for it; look for a backup or an archive of the same sessionId",
  },
  LINE_MALFORMED: {
    severity: "error",
    message: "line {line} is not a JSON object ({reason}); OpenClaw skips it",
    hint: "OpenClaw's repair drops such lines (keeping a .bak-*); copy the file first if the line matters",
  },
  LINE_BLANK: {
    severity: "info",
    message: "{count} blank line(s), first at line {line}",
    hint: "harmless: readers skip blank lines",
  },
  LINE_INVALID_UTF8: {
    severity: "warn",
    message: "line {line} is not valid UTF-8; read with replacement characters",
    hint: "the bytes on disk are intact; export with --raw to keep them",
  },
  LINE_OVERSIZED: {
    severity: "warn",
    message: 'line {line} is {size} (over {limit}); chat.history may replace it with "[chat.history omitted: message too large]"',
    hint: "the content is on disk: read it with `openclaw-sessions history --raw`",
  },
  HEADER_MISSING: {
    severity: "error",
    message: "the first record (line {line}) is not a session header",
    hint: "never open this file with Pi's SessionManager: it truncates files without a header; copy it first",
  },
  HEADER_ID_MISMATCH: {
    severity: "warn",
    message: "header id {headerId} differs from the expected sessionId {expected}",
    hint: "the file was renamed or copied from another session; attribution by header may disagree with the name",
  },
  HEADER_DUPLICATE: {
    severity: "warn",
    message: "another session header at line {line}; ignored",
    hint: "two transcripts were concatenated; split them at that line if both matter",
  },
  CHAIN_BROKEN: {
    severity: "warn",
    message: "line {line}: {reason}",
    hint: "OpenClaw attaches the row to the current leaf; the conversation may read out of order",
  },
  LEAF_TARGET_MISSING: {
    severity: "warn",
    message: "line {line}: leaf row points at unknown id {target}; ignored",
    hint: "the rewind it recorded is lost; the active branch ends at the last entry before it",
  },
  TOOL_CALL_UNANSWERED: {
    severity: "warn",
    message: "line {line}: tool call {callId} ({tool}) has no result on the active branch",
    hint: "providers reject histories with unpaired tool calls (HTTP 400); OpenClaw inserts a synthetic error result on replay",
  },
  TOOL_RESULT_ORPHAN: {
    severity: "warn",
    message: "line {line}: tool result for {callId} answers no tool call on the active branch",
    hint: "providers reject histories with unpaired tool results (HTTP 400)",
  },
  COMPACTION_SUMMARY_EMPTY: {
    severity: "warn",
    message: "line {line}: compaction stored {what} summary{sample}",
    hint: "the model lost the context before this point, and was told nothing of it; the messages are still on disk: {show}",
  },
  // ── SQLite era: legacy JSONL beside the database ───────────────────────────────
  LEGACY_NOT_IMPORTED: {
    severity: "warn",
    message: "{file}: session {sessionId} has no window in SQLite; none of its {entries} entries were imported",
    hint: "OpenClaw ≥ 2026.7.2 no longer reads this file; import it with `openclaw doctor --session-sqlite import`, and keep the file until then",
  },
  LEGACY_ENTRIES_MISSING: {
    severity: "warn",
    message: "{file}: {missing} of {entries} entries of session {sessionId} are not in SQLite",
    hint: "the import was partial (see #140296); keep this file, then rerun `openclaw doctor --session-sqlite validate`",
  },
  LEGACY_IMPORTED: {
    severity: "info",
    message: "{file}: all {entries} entries of session {sessionId} are in SQLite; this JSONL is a leftover",
    hint: "safe to archive once you have a backup; OpenClaw does not read it any more (#154277)",
  },
  IMPORT_ARCHIVE_LEFTOVER: {
    severity: "info",
    message: "{file} was moved aside by a Doctor import",
    hint: "OpenClaw does not read it; it is the original bytes of an imported file, kept for rollback",
  },
  // ── SQLite era: rows OpenClaw 9.6 refuses or hides, archives, locks ──────────
  SQLITE_SCHEMA_UNVERIFIED: {
    severity: "warn",
    message:
      "agent schema {version} (OpenClaw {app}) is newer than the {verified} this tool was verified on: read by its tables and columns, OpenClaw {rules}'s rules assumed unchanged",
    hint: "upgrade openclaw-sessions when a release verifies schema {version}; until then restore refuses to write this database (read-only commands work)",
  },
  SQLITE_ENTRY_NOT_VALID: {
    severity: "error",
    message:
      'OpenClaw refuses this session row ({reason}): every read of this agent\'s database throws "invalid persisted session row requires repair for {key}"',
    hint: "stop the Gateway and run `openclaw doctor --fix` (it rewrites the row); back up the database first",
  },
  SQLITE_PROJECTION_MISMATCH: {
    severity: "error",
    message:
      "column {column} is {stored} but the entry says {entry}: OpenClaw refuses the row and every read of this agent's database throws",
    hint: "stop the Gateway and run `openclaw doctor --fix`; back up the database first",
  },
  SQLITE_KEY_NOT_CANONICAL: {
    severity: "error",
    message: 'session key is not canonical ({reason}): OpenClaw refuses the row ("non-canonical persisted row resolves to session key …")',
    hint: "stop the Gateway and run `openclaw doctor --fix`, which migrates the key",
  },
  SQLITE_ROW_HIDDEN: {
    severity: "error",
    message: "{column} is {stored} but entry.updatedAt is {entry}: OpenClaw silently leaves this session out of sessions.list",
    hint: "the session and its transcript are intact but invisible; `openclaw doctor --fix` or any OpenClaw write to the entry realigns the column",
  },
  SQLITE_PLACEHOLDER_NODE: {
    severity: "warn",
    message:
      "placeholder row (deleted with deleteTranscript:false): OpenClaw shows no session, yet window {sessionId} still holds {events} event(s)",
    hint: "the conversation is still in the database (`openclaw-sessions ls` lists the window); copy it out before a cleanup removes it",
  },
  SQLITE_VALIDATION_PENDING: {
    severity: "info",
    message: "{count} session row(s) await OpenClaw's canonical validation (session_canonical_validation_pending)",
    hint: "normal after a Doctor import, an out-of-band write, or the move to agent schema 24 (OpenClaw 9.8/9.9 rewrites each entry that held cold fields): OpenClaw validates them on its next open; a row it rejects then makes the database refuse reads",
  },
  SQLITE_ARCHIVE_FILE_MISSING: {
    severity: "warn",
    message: "archive row {name} has no file in sessions/ ({state}); the row's blob is the only copy",
    hint: "OpenClaw deletes an archive row once retention passes and its file is gone: copy the conversation out (`openclaw-sessions export`) if you need it",
  },
  SQLITE_ARCHIVE_SHA_MISMATCH: {
    severity: "error",
    message: "sha256 of {what} is {actual}…, the row records {expected}…: the archive was altered",
    hint: "do not restore from it; compare the row's blob with the file and keep both until you know which is intact",
  },
  SQLITE_COLD_ARCHIVE_MISSING: {
    severity: "error",
    message:
      'cold archive of window {sessionId} is missing: its early events exist nowhere else and OpenClaw refuses to read the window ("in cold storage")',
    hint: "restore sessions/cold/ from a backup; nothing in the database holds these events",
  },
  SQLITE_SEQ_HOLE: {
    severity: "warn",
    message: "window {sessionId} has {missing} missing seq number(s), first at {first}: rows were deleted out of band",
    hint: "OpenClaw reads the remaining rows in seq order; a parentId chain through the hole breaks (compare with `openclaw-sessions verify-import` or a backup)",
  },
  GATEWAY_LOCK_LIVE: {
    severity: "info",
    message: "the state dir is owned by a live OpenClaw process ({who})",
    hint: "this run read a private snapshot; OpenClaw may be writing: Doctor's import refuses until the Gateway stops",
  },
} as const satisfies Record<string, CodeSpec>;

export type FindingCode = keyof typeof FINDING_CODES;

export const ALL_CODES = Object.keys(FINDING_CODES) as FindingCode[];

export type Vars = Record<string, string | number | null | undefined>;

/** Each template split at its placeholders once (text, name, text, …): a store can make 100,000 findings. */
const templates = new Map<string, string[]>();

/** Fills `{name}` placeholders; unknown names stay visible so a missing var is noticed. */
export function fill(template: string, vars: Vars): string {
  let parts = templates.get(template);
  if (!parts) {
    parts = template.split(/\{(\w+)\}/);
    templates.set(template, parts);
  }
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    const v = vars[name];
    out += (v === undefined || v === null ? `{${name}}` : String(v)) + parts[i + 1]!;
  }
  return out;
}
