/** Process entry: real streams in, exit code out. */
import readline from "node:readline/promises";
import { run } from "./program.js";

/** One line from the terminal; the question goes to stderr so stdout stays data only. */
async function ask(question: string): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
    ask,
  });
}
