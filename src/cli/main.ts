/** Process entry: real streams in, exit code out. */
import fs from "node:fs";

/** `--version` answers before commander and the commands load: cold start stays near `node -e 0`. */
function fastVersion(argv: string[]): boolean {
  if (argv.length !== 1 || (argv[0] !== "--version" && argv[0] !== "-V")) return false;
  const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
  return true;
}

/** One line from the terminal; the question goes to stderr so stdout stays data only. */
async function ask(question: string): Promise<string> {
  const readline = await import("node:readline/promises");
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  if (fastVersion(argv)) return;
  // The reader closed the pipe (`| head`): stop quietly, as grep and cat do.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  const { run } = await import("./program.js");
  process.exitCode = await run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    env: process.env,
    cwd: process.cwd(),
    ask,
  });
}
