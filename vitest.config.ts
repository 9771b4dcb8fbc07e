import os from "node:os";
import { defineConfig } from "vitest/config";

/**
 * No test is timed (speed belongs in bench/): a hung test, hook or teardown is caught here, at a
 * value a loaded machine does not reach, never by a figure that a slow run exceeds.
 */
const HUNG_MS = 180_000;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    setupFiles: ["test/helpers/cleanup.ts"],
    testTimeout: HUNG_MS,
    hookTimeout: HUNG_MS,
    teardownTimeout: HUNG_MS,
    pool: "forks",
    // Most tests wait on the CLI processes they start, so vitest's default (one worker fewer than
    // the cores) leaves a 2-core machine half idle: measured 290 s → 146 s with one per core. And
    // 73 of them wait out the index's racy window (2.1 s each, pastRacyWindow) with the core idle:
    // on 2 cores, 264 s with two workers, 218 s with three, 212 s with four.
    maxWorkers: os.availableParallelism() + 1,
    // A worker runs file after file in one process rather than a new process per file: each new one
    // paid its start and module loads again. Measured on 2 cores: 286 → 229 s on Node 24, 299 →
    // 239 s on the floor. Every file still gets its own setup (test/helpers/cleanup.ts: a private
    // cache dir, its temp dirs removed), and the suite passes with its files shuffled
    // (--sequence.shuffle.files).
    isolate: false,
  },
});
