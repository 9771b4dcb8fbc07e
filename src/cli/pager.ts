/**
 * Long text output on a terminal goes through a pager, as git does: $OPENCLAW_SESSIONS_PAGER, else
 * $PAGER, else `less` (with LESS=FRX when LESS is unset, so a short output just prints, colours
 * pass and the screen is not cleared; LV=-c for lv). Never for --json or --no-pager, never when
 * stdout is not a terminal; an empty pager or `cat` means none. While the pager runs, stderr
 * (context lines, warnings) is held and written once it has exited, so nothing is drawn over it.
 */
import type { ChildProcess } from "node:child_process";
import type { App } from "./app.js";
import type { IO } from "./output.js";

/** The pager command and the environment it runs with; null when none is wanted. */
export function pagerCommand(env: NodeJS.ProcessEnv): { command: string; env: NodeJS.ProcessEnv } | null {
  const command = (env.OPENCLAW_SESSIONS_PAGER ?? env.PAGER ?? "less").trim();
  if (command === "" || command === "cat") return null;
  return { command, env: { ...env, LESS: env.LESS ?? "FRX", LV: env.LV ?? "-c" } };
}

/** Whether this run's stdout is paged: a terminal, not --json, not --no-pager. */
export function pagerWanted(io: Pick<IO, "stdout">, opts: { json?: boolean; pager?: boolean }): boolean {
  return Boolean(io.stdout.isTTY) && !opts.json && opts.pager !== false;
}

/** Plain words (`less -R`, `/usr/bin/most`) run as they are, so a missing program is known before output is lost; anything else through sh, as git does. */
const PLAIN_WORDS = /^[\w@%+=:,./-]+(?:\s+[\w@%+=:,./-]+)*$/;

async function spawnPager(command: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  // Loaded only when a pager runs: most runs never spawn anything. Builtins are taken as the
  // bundle takes them (scripts/build.mjs): it has no import() of its own.
  const { spawn } = process.getBuiltinModule("node:child_process");
  const stdio: ["pipe", "inherit", "inherit"] = ["pipe", "inherit", "inherit"];
  if (!PLAIN_WORDS.test(command)) return spawn("sh", ["-c", command], { stdio, env });
  const [program, ...args] = command.split(/\s+/);
  return spawn(program!, args, { stdio, env });
}

/** The child has started, or why it could not. */
function started(child: ChildProcess): Promise<Error | null> {
  return new Promise((resolve) => {
    child.once("spawn", () => resolve(null));
    child.once("error", (err) => resolve(err));
  });
}

export interface Pager {
  /** Close the pager's input, wait for it to exit, then write what stderr held. */
  end(): Promise<void>;
}

/**
 * Start the pager and point the run's stdout at it (still a terminal to the renderers: colour,
 * escaping and width are the real terminal's) and its stderr at a holding buffer. Null when no
 * pager runs; a pager that cannot start is said once and the output is written directly.
 */
export async function startPager(app: App): Promise<Pager | null> {
  const io = app.io;
  const wanted = pagerCommand(io.env);
  if (!wanted) return null;
  const child = await spawnPager(wanted.command, wanted.env);
  const failed = await started(child);
  const input = child.stdin!;
  if (failed) {
    io.stderr.write(`openclaw-sessions: cannot run the pager ${JSON.stringify(wanted.command)} (${failed.message}); writing directly\n`);
    return null;
  }
  const real = { stdout: io.stdout, stderr: io.stderr };
  const held: string[] = [];
  // The user quitting the pager closes its input: the run stops at its next write, quietly.
  input.on("error", () => {
    app.outputClosed = true;
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // Ctrl-C reaches the pager too, which stays: the run stops at its next write and waits for it
  // (as git does), so the shell's prompt never comes back under a pager still drawing.
  const interrupted = () => {
    app.outputClosed = true;
  };
  process.on("SIGINT", interrupted);
  const columns = (real.stdout as { columns?: number }).columns;
  const paged = {
    isTTY: true as const,
    ...(columns !== undefined ? { columns } : {}),
    write: (chunk: string | Buffer) => input.write(chunk),
    get destroyed() {
      return input.destroyed;
    },
    get writableNeedDrain() {
      return input.writableNeedDrain;
    },
    once(ev: string, f: () => void) {
      input.once(ev, f);
      return paged;
    },
    off(ev: string, f: () => void) {
      input.off(ev, f);
      return paged;
    },
  };
  io.stdout = paged as unknown as IO["stdout"];
  io.stderr = {
    isTTY: false,
    write: (s: string) => {
      held.push(String(s));
      return true;
    },
  };
  return {
    async end() {
      if (!input.destroyed) input.end();
      await exited;
      process.off("SIGINT", interrupted);
      io.stdout = real.stdout;
      io.stderr = real.stderr;
      if (held.length > 0) io.stderr.write(held.join(""));
    },
  };
}
