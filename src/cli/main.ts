/**
 * Process entry: real streams in, exit code out. The CLI's wiring (commander, the command
 * definitions) is loaded once the run needs it: a shell's Tab (`__complete`) is answered without it.
 */
import { openStderr, openStdout } from "./fd-stdout.js";
import { VERSION } from "./version.js";
import { wantsHeapHeldClose, wantsHeapHeldFromStart, wantsYoungGenerationHeld, youngSizedByUser } from "./young-generation.js";
import { heapHold } from "../store/process/streaming-memory.js";
import type { IO } from "./output.js";

/** Asked by the bin at exit: how the run gave its whole answers (kept, derived and kept, none), for its code cache. */
export { answersKind } from "../store/cache/answers-given.js";

/** `--version` answers before anything runs (the bin answers it before this module even loads). */
function fastVersion(argv: string[]): boolean {
  if (argv.length !== 1 || (argv[0] !== "--version" && argv[0] !== "-V")) return false;
  process.stdout.write(`${VERSION}\n`);
  return true;
}

/**
 * Node 22 flags `node:sqlite` as experimental and prints a two-line warning on first use; the
 * tool depends on it deliberately, so that one warning is dropped and every other is kept.
 */
function quietSqliteWarning(): void {
  const printers = process.listeners("warning");
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    if (w.name === "ExperimentalWarning" && /SQLite/i.test(w.message)) return;
    for (const print of printers) print(w);
  });
}

/** One line from the terminal; the question goes to stderr so stdout stays data only. */
async function ask(question: string): Promise<string> {
  // Builtins as the bundle takes them (scripts/build.mjs): it has no import() of its own.
  const readline = process.getBuiltinModule("node:readline/promises");
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  if (fastVersion(argv)) return;
  quietSqliteWarning();
  // Each Tab runs `__complete`: the plain arguments the scripts pass need no commander (complete-items.ts).
  if (argv[0] === "__complete") {
    const { parseCompleteArgs, writeCompletionItems } = await import("./complete-items.js");
    const parsed = parseCompleteArgs(argv.slice(1));
    if (parsed) {
      // A shell that stopped reading (EPIPE) ends the list, quietly.
      const stdout = openStdout().on("error", (err: NodeJS.ErrnoException) => {
        if (err.code !== "EPIPE") throw err;
      });
      const io = { stdout, env: process.env, cwd: process.cwd() };
      // The arguments after the kind, as the scripts pass them (`__complete keys --prefix=… …`).
      await writeCompletionItems(parsed.what, parsed.opts, io, argv[1] === parsed.what ? argv.slice(2) : null);
      process.exitCode = 0;
      exitWhenDone([stdout]);
      return;
    }
  }
  // Node opens a standard stream on first use (on a pipe that loads its net module): each is
  // opened when first asked for, and is its fd itself where it can be (fd-stdout.ts).
  let stdout: IO["stdout"] | undefined;
  let stderr: IO["stderr"] | undefined;
  const io: IO = {
    get stdout() {
      stdout ??= openStdout();
      return stdout;
    },
    set stdout(s) {
      stdout = s;
    },
    get stderr() {
      if (stderr === undefined) {
        const opened = openStderr();
        // A stderr that cannot be written (redirected to a full disk) has nowhere to say so: the
        // run's output and exit code stay its own, never a crash's.
        opened.on("error", () => {});
        stderr = opened;
      }
      return stderr;
    },
    set stderr(s) {
      stderr = s;
    },
    // Asked only by a command that may prompt (restore): opening stdin is a measurable part of a start.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    env: process.env,
    cwd: process.cwd(),
    ask,
  };
  const { run } = await import("./program.js");
  // A store reader holds its young generation, `ls` its heap on a big store, `grep` its heap from
  // its start (young-generation.ts); all let go at the end: the bin writes its code cache at exit,
  // and V8 refuses one made under other flags at the next start.
  if (wantsYoungGenerationHeld(argv, process.execArgv, process.env)) heapHold.young();
  if (wantsHeapHeldClose(argv)) heapHold.want({ young: !youngSizedByUser(process.execArgv, process.env) });
  if (wantsHeapHeldFromStart(argv)) heapHold.now();
  try {
    // A closed stdout (`| head`) is handled by run(): commands stop, the exit code stays theirs.
    process.exitCode = await run(argv, io);
  } finally {
    heapHold.release();
  }
  exitWhenDone([stdout, stderr]);
}

/**
 * Ends the process as soon as the run has left nothing to finish, rather than where Node's loop
 * ends, which first tears V8's heap down (an empty store's `ls --json`: 5 ms of CPU). Checked once
 * the run's last promise jobs are done (a turn of the loop later), and only when nothing keeps the
 * loop alive but an idle terminal (a server, a pager or another child, a worker, a timer, a file
 * operation each would) and no stream holds output not yet handed to the kernel. Else Node ends
 * it as ever. The exit code is the run's; the bin's `exit` listener (its code cache) runs either way.
 */
function exitWhenDone(streams: ReadonlyArray<IO["stdout"] | undefined>): void {
  setImmediate(() => {
    if (!process.getActiveResourcesInfo().every((r) => r === "TTYWrap")) return;
    if (streams.some((s) => s !== undefined && "writableLength" in s && s.writableLength > 0)) return;
    process.exit();
  });
}
