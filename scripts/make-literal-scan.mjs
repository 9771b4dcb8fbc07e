#!/usr/bin/env node
/**
 * Writes src/store/literal-scan-wasm.ts: src/store/literal-scan.wat compiled by wabt (a pinned
 * devDependency), as base64. Rerun it after changing the .wat; test/store/literal-scan.test.ts
 * fails while the two disagree.
 *
 *   node scripts/make-literal-scan.mjs
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import wabt from "wabt";

const store = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "store");
const wat = fs.readFileSync(path.join(store, "literal-scan.wat"), "utf8");
const module = (await wabt()).parseWat("literal-scan.wat", wat, { simd: true });
module.validate();
const { buffer } = module.toBinary({});
module.destroy();
const out = `/**
 * literal-scan.wat compiled (scripts/make-literal-scan.mjs writes this file; do not edit it). The
 * module is ${buffer.length} bytes: short enough to carry as text, and no file to find at run time.
 */
export const LITERAL_SCAN_WASM =
  "${Buffer.from(buffer).toString("base64")}";
`;
fs.writeFileSync(path.join(store, "literal-scan-wasm.ts"), out);
console.log(`src/store/literal-scan-wasm.ts: ${buffer.length} bytes of wasm`);
