/**
 * `serve` and `open <key>`: the local, read-only viewer. Starts the server (cli/serve/server.ts)
 * on the loopback interface, prints its URL (with the random token every request needs) once on
 * stdout, opens a browser when asked, and runs until Ctrl-C or SIGTERM, then stops cleanly.
 */
import type { App } from "../app.js";
import { defineCommand } from "../define-command.js";
import { addVaultOption, integerOption, selectionOf, type CommonOptions } from "../options.js";
import { environmentError, usageError } from "../../core/errors.js";
import type { StoreContext, StoreSelection } from "../../store/index.js";
import type { SnapshotPool } from "../../store/sqlite/snapshots.js";

interface ServeFlags extends CommonOptions {
  port?: number;
  open?: boolean;
}

const STOP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Resolves on the first stop signal. The listeners stay: a signal re-raised by the snapshot
 * cleanup (store/process/on-interrupt.ts) then finds one and does not kill the process before the
 * server has closed.
 */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const s of STOP_SIGNALS) process.on(s, () => resolve(s));
  });
}

/** The system's way to open a URL in the default browser (`xdg-open`, `open`, `start`). */
function openBrowser(app: App, url: string): void {
  const [cmd, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]]
        : ["xdg-open", [url]];
  // Loaded here, not imported: node:child_process is a measurable part of every command's start.
  const child = process.getBuiltinModule("node:child_process").spawn(cmd, args, { stdio: "ignore", detached: true, env: app.io.env });
  child.on("error", () => app.say(`could not start ${cmd} to open a browser; open the URL above yourself`));
  // A machine without a browser (a server over SSH): xdg-open says so by its exit code, and the
  // user would otherwise wait for a window that never comes.
  child.on("exit", (code) => {
    if (code) app.say(`${cmd} could not open a browser (exit ${code}); open the URL above yourself`);
  });
  child.unref();
}

/**
 * A store session for what is checked before the server starts, closed at once. Given the
 * server's pool, a database it copies stays there for the first request while it is unchanged.
 */
async function withSession<T>(app: App, body: (ctx: StoreContext) => Promise<T>, snapshots?: SnapshotPool): Promise<T> {
  // Imported here: a static import would load the store layer (and node:sqlite) at every command's start.
  const { openStoreSession } = await import("../../store/session.js");
  const session = openStoreSession({ env: app.io.env, cwd: app.io.cwd, ...(snapshots ? { snapshots } : {}) });
  try {
    return await body({ env: app.io.env, cwd: app.io.cwd, session });
  } finally {
    for (const n of session.notices()) app.say(n);
    session.close();
  }
}

const PORT_HELP = "the port (default: a random free one); the server listens on 127.0.0.1 and ::1 only";

/**
 * Serve until stopped. `pathOf` checks what the command was asked for before anything starts and
 * names the page to open in a browser (relative to the token's root), or null for none.
 */
async function serveUntilStopped(
  app: App,
  flags: ServeFlags,
  sel: StoreSelection,
  pathOf: (ctx: StoreContext) => Promise<string | null>,
): Promise<void> {
  const { startServer } = await import("../serve/server.js");
  const { routes } = await import("../serve/routes.js");
  const { SnapshotPool } = await import("../../store/sqlite/snapshots.js");
  const { resolveZone } = await import("../../store/local-zone.js");
  const tz = resolveZone(flags.tz, app.io.env);
  const snapshots = new SnapshotPool();
  try {
    // Through the server's pool: a database copied here serves the first request while it is unchanged.
    const { path, stores } = await withSession(
      app,
      async (ctx) => ({ path: await pathOf(ctx), stores: await ctx.session.indexes(sel) }),
      snapshots,
    );
    const route = routes({ selection: sel, env: app.io.env, cwd: app.io.cwd, tz, snapshots });
    const server = await startServer({
      port: flags.port ?? 0,
      route,
      onError: (err) => app.say(`internal error while answering a request: ${err instanceof Error ? err.message : String(err)}`),
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE" || err.code === "EACCES")
        throw environmentError(
          "PORT_UNAVAILABLE",
          `cannot listen on port ${flags.port}: ${err.code === "EACCES" ? "permission denied" : "in use"}`,
          "pick another --port, or leave it out for a random one",
        );
      throw err;
    });
    const stopped = stopSignal();
    const where = stores
      .map((s) => `${s.location.era === "sqlite" ? "SQLite" : "file-backed"} store of agent "${s.location.agentId}"`)
      .join(", ");
    app.io.stdout.write(`${server.url}${path ?? ""}\n`);
    app.context(flags, `serving ${where || "no store"} read-only on ${server.addresses.join(" and ")} port ${server.port}; Ctrl-C stops`);
    if (flags.open || path !== null) openBrowser(app, `${server.url}${path ?? ""}`);
    const signal = await stopped;
    await server.close();
    app.context(flags, `stopped (${signal})`);
  } finally {
    snapshots.close();
  }
}

const VAULT_HELP = "also what only the vault still holds, on every page, marked";

export const registerServe = defineCommand<ServeFlags>({
  name: "serve",
  description: "a local, read-only web viewer: every key's drawn timeline, its whole conversation, search over every era",
  output: "no-json",
  options: (cmd) =>
    addVaultOption(cmd, VAULT_HELP)
      .option("--port <n>", PORT_HELP, integerOption("--port", { min: 0 }))
      .option("--open", "open the overview in the default browser (xdg-open / open)"),
  help: `
Examples:
  $ openclaw-sessions serve
  $ openclaw-sessions serve --open --all-agents
  $ openclaw-sessions serve --state-dir fixtures/corpus/files/reset-chain/state --open
  $ openclaw-sessions open agent:main:telegram:direct:42

Prints the URL once on stdout: it holds a random token that every request must carry (like a
notebook server's). Listens on 127.0.0.1 and ::1 only, answers GET and HEAD only, loads nothing
from anywhere else, and never writes to the store (the restore panel shows the dry run and the
command to run). Each page reads the store as it is now. Ctrl-C or SIGTERM stops it (exit 0).
More: docs/serve.md.
`,
  async run({ app, flags }) {
    checkPort(flags.port);
    await serveUntilStopped(app, flags, selectionOf(flags), async () => null);
  },
});

function checkPort(port: number | undefined): void {
  if (port !== undefined && port > 65535)
    throw usageError("BAD_OPTION_VALUE", `--port takes a TCP port (0–65535; 0: a random one), got ${port}`, undefined, {
      option: "--port",
    });
}

export const registerOpen = defineCommand<ServeFlags, [string]>({
  name: "open",
  arguments: [["<key>", "the sessionKey to open"]],
  description: "start the viewer (serve) and open a key's page in the default browser",
  output: "no-json",
  options: (cmd) => addVaultOption(cmd, VAULT_HELP).option("--port <n>", PORT_HELP, integerOption("--port", { min: 0 })),
  help: `
Examples:
  $ openclaw-sessions open agent:main:main
  $ openclaw-sessions open agent:main:telegram:direct:42 --state-dir ~/.openclaw --port 8123

Runs until Ctrl-C, like serve. A key that does not exist is a usage error (exit 2) before
anything starts.
`,
  async run({ app, flags }, key) {
    checkPort(flags.port);
    const sel = selectionOf(flags, key);
    const { checkKey } = await import("../serve/routes.js");
    await serveUntilStopped(app, flags, sel, async (ctx) => {
      const { agentId } = await checkKey(sel, key, ctx);
      return `key?${new URLSearchParams({ k: key, agent: agentId }).toString()}`;
    });
  },
});
