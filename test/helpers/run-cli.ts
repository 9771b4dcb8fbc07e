/** Runs the CLI from source in a child process: `node --import tsx test/helpers/run-cli.ts <args>`. */
import { main } from "../../src/cli/main.js";

await main();
