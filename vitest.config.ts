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
    // the cores) leaves a 2-core machine half idle: measured 290 s → 146 s with one per core, and
    // no faster with three.
    maxWorkers: os.availableParallelism(),
  },
});
