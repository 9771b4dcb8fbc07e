/** Runs the CLI in-process with captured streams, NO_COLOR and a private HOME. */
import { run } from "../../src/cli/program.js";
import { homeNotMade } from "./temp.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: () => any;
}

export async function cli(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult & { /** The length of each write to stdout, in order. */ stdoutWrites: number[] }> {
  let stdout = "";
  let stderr = "";
  const stdoutWrites: number[] = [];
  const code = await run(argv, {
    stdout: { write: (s: string) => (stdoutWrites.push(s.length), (stdout += s), true), isTTY: false },
    stderr: { write: (s: string) => ((stderr += s), true), isTTY: false },
    stdinIsTTY: false,
    env: { NO_COLOR: "1", HOME: homeNotMade(), XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, ...opts.env },
    cwd: opts.cwd ?? process.cwd(),
  });
  return { code, stdout, stderr, stdoutWrites, json: () => JSON.parse(stdout) };
}
