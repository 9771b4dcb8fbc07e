export * from "./diagnostics.js";
export * from "./parse.js";
export * from "./tree.js";
export * from "./scan.js";
export * from "./text.js";
export * from "./history.js";
export * from "./context.js";
export * from "./raw.js";
