/**
 * What a shell's Tab runs: `__complete keys|archives|zones [store options]`, one item per line.
 * It is run on every Tab, so main.ts answers it without commander or any command's wiring when
 * its arguments are the plain ones the completion scripts pass (parseCompleteArgs); anything else
 * goes through commander (src/cli/commands/completion.ts), which prints the same items.
 */
import { hasUnsafe } from "../core/safe-text.js";
import type { IO } from "./output.js";
import { type CommonOptions, selectionOf } from "./selection.js";
import type { StorePlace } from "../store/session.js";

/**
 * The store options of addStoreOptions (options.ts), as commander parses them: the property each
 * sets, and whether it takes a value (`--no-index` sets index false). test/cli/complete-items.test.ts
 * checks this list against addStoreOptions.
 */
export const COMPLETE_STORE_OPTIONS: Record<string, { property: keyof CommonOptions; takesValue: boolean }> = {
  "--state-dir": { property: "stateDir", takesValue: true },
  "--profile": { property: "profile", takesValue: true },
  "--agent": { property: "agent", takesValue: true },
  "--all-agents": { property: "allAgents", takesValue: false },
  "--sessions-dir": { property: "sessionsDir", takesValue: true },
  "--store": { property: "store", takesValue: true },
  "--no-index": { property: "index", takesValue: false },
};

/** `__complete`'s options: the store options, and `--prefix`. */
export interface CompleteOptions extends CommonOptions {
  /**
   * Only the items that begin with this text (the word being completed). The bash script passes
   * it and takes the items as they are: compgen -W would expand each one as shell words, running
   * a `$(…)` in a key from the store.
   */
  prefix?: string;
}

/** `__complete`'s options as commander parses them (commands/completion.ts addCompleteOptions; the test checks it). */
export const COMPLETE_OPTIONS: Record<string, { property: keyof CompleteOptions; takesValue: boolean }> = {
  ...COMPLETE_STORE_OPTIONS,
  "--prefix": { property: "prefix", takesValue: true },
};

/**
 * The arguments after `__complete` as commander reads them: one item kind, store options and
 * `--prefix` (`--opt value` or `--opt=value`; a value is the next argument whatever it is; the last
 * one given wins). null for anything else (help, `--`, a short or unknown option, a missing or
 * extra argument): commander parses those and answers as it always has.
 */
export function parseCompleteArgs(args: readonly string[]): { what: string; opts: CompleteOptions } | null {
  let what: string | undefined;
  const opts: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) {
      if (what !== undefined) return null;
      what = arg;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const option = Object.hasOwn(COMPLETE_OPTIONS, name) ? COMPLETE_OPTIONS[name]! : null;
    if (option === null) return null;
    if (!option.takesValue) {
      if (eq >= 0) return null;
      opts[option.property] = name !== "--no-index";
      continue;
    }
    if (eq >= 0) opts[option.property] = arg.slice(eq + 1);
    else if (i + 1 < args.length) opts[option.property] = args[++i];
    else return null;
  }
  return what === undefined ? null : { what, opts: opts as CompleteOptions };
}

/**
 * The arguments after the item kind as the shell passed them, but the prefix (`--prefix=…`, where
 * it is the option, not another option's value): the store options bash's completion function
 * puts in its question (store/cache/tab-proof.ts). Null for a prefix written as two words, which
 * no script passes.
 */
export function questionArgs(args: readonly string[]): string[] | null {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--prefix") return null;
    if (arg.startsWith("--prefix=")) continue;
    out.push(arg);
    if (Object.hasOwn(COMPLETE_OPTIONS, arg) && COMPLETE_OPTIONS[arg]!.takesValue && i + 1 < args.length) out.push(args[++i]!);
  }
  return out;
}

/** The items of one kind, for the store the options select; never fails loudly. */
async function completionItems(what: string, opts: CommonOptions, place: StorePlace): Promise<string[]> {
  if (what === "zones") return Intl.supportedValuesOf("timeZone").concat("UTC");
  // Keys, on every Tab: sessions.json or the database's key rows only, not a whole store index.
  if (what === "keys") return (await import("../store/session-keys.js")).readSessionKeys(selectionOf(opts), place);
  if (what !== "archives") return [];
  // Outside the error boundary (it never fails loudly), so it closes its own session. Kept as a
  // store-wide answer: a later Tab on an unchanged store walks it instead of indexing it.
  const { openStoreSession } = await import("../store/session.js");
  const session = openStoreSession(place);
  const sel = selectionOf(opts);
  const archives = async () =>
    (await session.indexes(sel)).flatMap((i) => i.files.filter((f) => f.archive !== null && f.archive !== undefined).map((f) => f.name));
  return session.answer(sel, "complete-archives/1", archives).finally(() => session.close());
}

/**
 * An item the shell can offer: a key or file name holding a control character (an ESC sequence,
 * a bidi override) would reach the terminal through the shell's list as it is, and one holding a
 * TAB or LF would break the one-item-a-line answer. `ls` shows such a name, escaped.
 */
const completable = (item: string) => item !== "" && !hasUnsafe(item) && !/[\t\n]/.test(item);

/** The items, sorted, each once, one a line. */
function itemLines(items: readonly string[]): string {
  return [...new Set(items)]
    .filter(completable)
    .sort()
    .map((k) => `${k}\n`)
    .join("");
}

async function keyLines(
  opts: CompleteOptions,
  place: StorePlace,
  lines: () => Promise<string>,
  args: readonly string[] | null,
): Promise<string> {
  const [{ keptKeyLines }, { tabQuestion }] = await Promise.all([
    import("../store/session-keys.js"),
    import("../store/cache/tab-proof.js"),
  ]);
  const asked = args === null ? null : questionArgs(args);
  return keptKeyLines(selectionOf(opts), place, lines, asked === null ? null : tabQuestion(asked, place.env, place.cwd));
}

/** The lines of `text` (one item a line) that begin with `prefix`. */
function linesBeginningWith(text: string, prefix: string): string {
  if (prefix === "") return text;
  return text
    .split("\n")
    .filter((line) => line !== "" && line.startsWith(prefix))
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * Writes the items, sorted, each once (only those beginning with `opts.prefix`); nothing when there
 * is no store (completion must stay quiet). `args`: the arguments after the item kind as the shell
 * passed them, when they are the plain ones (parseCompleteArgs): keys then leave bash's next Tab a
 * proof (store/cache/tab-proof.ts).
 */
export async function writeCompletionItems(
  what: string,
  opts: CompleteOptions,
  io: Pick<IO, "stdout" | "env" | "cwd">,
  args: readonly string[] | null = null,
): Promise<void> {
  try {
    const place = { env: io.env, cwd: io.cwd };
    const lines = async () => itemLines(await completionItems(what, opts, place));
    // Keys, on every Tab: the lines a Tab before wrote, while the files they came from are unchanged.
    const text = what === "keys" ? await keyLines(opts, place, lines, args) : await lines();
    io.stdout.write(linesBeginningWith(text, opts.prefix ?? ""));
  } catch {
    // completion must stay quiet: no store, nothing to offer
  }
}
