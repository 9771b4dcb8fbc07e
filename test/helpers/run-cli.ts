/** The real CLI entry for child-process tests: `node --import tsx test/helpers/run-cli.ts <args>`. */
import { main } from "../../src/cli/main.js";

await main();
