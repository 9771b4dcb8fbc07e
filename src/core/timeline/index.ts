export * from "./tz.js";
export * from "./policy.js";
export * from "./facts.js";
export * from "./infer.js";
export * from "./compaction-count.js";
export * from "./build.js";
