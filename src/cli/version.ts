/** The package version, inlined into the bundle at build time. */
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
