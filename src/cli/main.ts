/** Process entry: real streams in, exit code out. */
import { run } from "./program.js";

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  // The reader closed the pipe (`| head`): stop quietly, as grep and cat do.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  process.exitCode = await run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
  });
}
