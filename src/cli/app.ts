/** What a command's CLI wiring gets: the streams, the environment, and a way to set the exit code. */
import type { IO, Style } from "./output.js";
import { colorLevel, makeStyle } from "./output.js";
import type { CommonOptions } from "./options.js";
import { reportError } from "./boundary.js";

export interface App {
  io: IO;
  exitCode: number;
  /** Raise the exit code (the highest applicable code wins). */
  raise(code: number): void;
  styleFor(stream: "stdout" | "stderr", opts: CommonOptions): Style;
  /** Run a command body inside the error boundary. */
  guard(opts: CommonOptions, body: () => Promise<void>): Promise<void>;
}

export function createApp(io: IO): App {
  const app: App = {
    io,
    exitCode: 0,
    raise(code) {
      if (code > app.exitCode) app.exitCode = code;
    },
    styleFor(stream, opts) {
      return makeStyle(colorLevel(opts.color, io.env, io[stream].isTTY));
    },
    async guard(opts, body) {
      try {
        await body();
      } catch (err) {
        app.raise(reportError(err, io, opts));
      }
    },
  };
  return app;
}
