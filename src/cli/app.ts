/** What a command's CLI wiring gets: the streams, the environment, and a way to set the exit code. */
import { colorLevel, outputSink, type IO, type OutputSink } from "./output.js";
import { loadColours, makeStyle, type Style } from "../render/style.js";
import type { CommonOptions } from "./options.js";
import { pathsNamedBy, reportError, writeMessage } from "./boundary.js";
import { resolveZone } from "../store/local-zone.js";
import type { TextContext } from "../render/common.js";
import { outputWidth } from "../render/table.js";

/** Thrown to unwind a command once stdout's reader has gone (`| head`); not an error. */
export class OutputClosed extends Error {
  constructor() {
    super("stdout closed");
    this.name = "OutputClosed";
  }
}
import { ExitCode } from "../core/errors.js";
import { UnreadableLog } from "../store/safe-read.js";
import { environmentFailure } from "../store/env-errors.js";
import type { Progress, StoreContext } from "../store/index.js";
import type { StoreSession } from "../store/session.js";

/** The store layer, loaded before the first body that reads a store (`guard`): wiring and parsing a command do not load it. */
let storeLayer: typeof import("../store/session.js") | null = null;

export interface App {
  io: IO;
  /** The arguments the CLI was run with, after the program's name (program.ts run sets them). */
  argv?: readonly string[];
  exitCode: number;
  /** True once stdout's reader has gone (EPIPE), or its writes failed (`guard` then says why): commands stop work. */
  outputClosed: boolean;
  /** Raise the exit code (the highest applicable code wins). */
  raise(code: number): void;
  styleFor(stream: "stdout" | "stderr", opts: CommonOptions): Style;
  /** Colours, zone, clock and width for a text renderer writing to stdout. */
  textContext(opts: CommonOptions): TextContext;
  /** A context line for people (which store, which file, counts): stderr, never with -q or --json. */
  context(opts: CommonOptions & { jsonl?: boolean }, text: string): void;
  /**
   * A message line on stderr (`openclaw-sessions: …`, and a hint), made safe; shown even with -q.
   * `about`: an input file the line names with why it cannot be read, so the run does not name it again.
   */
  say(text: string, hint?: string | null, about?: string): void;
  /** Whether `context` prints anything for these options (not with -q, --json or --jsonl). */
  showsContext(opts: CommonOptions & { jsonl?: boolean }): boolean;
  /** Throws OutputClosed when stdout's reader has gone: call between units of streamed work. */
  checkOutput(): void;
  /** The one way a streaming command writes stdout: waits for a slow reader, stops once it has gone (output.ts). */
  output(opts?: { gather?: number }): OutputSink;
  /**
   * What a command reads the stores through: this run's store session (opened on first use,
   * closed by `guard` when the body ends), the environment and the cwd.
   */
  storeContext(progress?: Progress): StoreContext;
  /**
   * Run a command body inside the error boundary; closes the run's store session whatever happens.
   * `store` false: the body reads no store (`storeContext` is not loaded for it).
   */
  guard(opts: CommonOptions, body: () => Promise<void>, store?: boolean): Promise<void>;
}

export function createApp(io: IO): App {
  let session: StoreSession | null = null;
  /** Unreadable files a message of this run already named. */
  let named: string[] = [];
  const app: App = {
    io,
    exitCode: 0,
    outputClosed: false,
    raise(code) {
      if (code > app.exitCode) app.exitCode = code;
    },
    styleFor(stream, opts) {
      return makeStyle(colorLevel(opts.color, io.env, io[stream].isTTY));
    },
    textContext(opts) {
      // The zone when a renderer first asks (Intl's first use is 15–30 ms; JSON output never asks),
      // except a --tz given, checked at once: a usage error comes before any work.
      let tz = opts.tz === undefined ? null : resolveZone(opts.tz, io.env);
      return {
        style: app.styleFor("stdout", opts),
        get tz() {
          tz ??= resolveZone(opts.tz, io.env);
          return tz;
        },
        now: Date.now(),
        width: outputWidth(io.stdout as { isTTY?: boolean; columns?: number }, io.env),
      };
    },
    say(text, hint, about) {
      writeMessage(io, text, hint);
      if (about !== undefined) named.push(about);
    },
    showsContext(opts) {
      return !opts.quiet && !opts.json && !opts.jsonl;
    },
    context(opts, text) {
      if (!app.showsContext(opts) || text === "") return;
      io.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
    },
    checkOutput() {
      // A failed synchronous write to a pipe destroys the stream at once; the 'error' event only
      // comes on a later tick, which a scan that never yields would not see.
      if ((io.stdout as { destroyed?: boolean }).destroyed) app.outputClosed = true;
      if (app.outputClosed) throw new OutputClosed();
    },
    output(opts) {
      return outputSink(io.stdout, () => app.checkOutput(), opts);
    },
    storeContext(progress) {
      if (!storeLayer) throw new Error("internal: storeContext() outside a command body");
      session ??= storeLayer.openStoreSession({ env: io.env, cwd: io.cwd });
      return { env: io.env, cwd: io.cwd, session, ...(progress ? { progress } : {}) };
    },
    async guard(opts, body, store = true) {
      const log = new UnreadableLog();
      named = [];
      let notices: string[] = [];
      try {
        if (store) storeLayer ??= await import("../store/session.js");
        // Colour for either stream: chalk is loaded now, so styleFor stays synchronous. Whether a
        // terminal would get colour (not with NO_COLOR, --no-color…) is asked first: asking a stream opens it.
        const coloured = (isTTY: boolean | undefined) => colorLevel(opts.color, io.env, isTTY) > 0;
        if (coloured(true) && (coloured(io.stdout.isTTY) || coloured(io.stderr.isTTY))) await loadColours();
        await log.run(body);
      } catch (err) {
        if (err instanceof OutputClosed || (app.outputClosed && (err as NodeJS.ErrnoException)?.code === "EPIPE")) {
          sayOutputFailure();
          return;
        }
        named.push(...pathsNamedBy(err));
        app.raise(reportError(err, io, opts));
      } finally {
        // The one place a run's store session ends: its database snapshots are removed here. Its
        // notices are taken after the close, which may add one (an index it could not write).
        session?.close();
        notices = session?.notices() ?? [];
        session = null;
      }
      // What was read but not verified (a newer agent schema): a warning, shown even with -q.
      for (const n of notices) app.say(n);
      // Inputs the command met but could not read: each named once, and exit 3, in every command.
      const unreadable = log.files(named);
      for (const u of unreadable) app.say(`cannot read ${u.path}: ${u.cause}`);
      if (log.files().length > 0) app.raise(ExitCode.environment);
      sayOutputFailure();
    },
  };
  /**
   * Stdout's writes failed for another reason than its reader going away (a full disk, a file too
   * large): what it got is cut short, so the run says it and exits 3, never 0.
   */
  let outputFailureSaid = false;
  const sayOutputFailure = () => {
    // The stream's own record of the error that ended it (Node's Writable and FdStream alike).
    const failure = (io.stdout as { errored?: NodeJS.ErrnoException | null }).errored ?? null;
    if (failure === null || readerGone(failure) || outputFailureSaid) return;
    outputFailureSaid = true;
    const named = environmentFailure(failure, "writing the output");
    app.say(`${named?.message ?? `writing the output failed: ${failure.message}`}; what was written is cut short`, named?.hint);
    app.raise(ExitCode.environment);
  };
  return app;
}

/** Stdout's reader went away (`| head`): not a failure of the run. */
function readerGone(err: NodeJS.ErrnoException): boolean {
  return err.code === "EPIPE" || err.code === "ERR_STREAM_DESTROYED";
}
