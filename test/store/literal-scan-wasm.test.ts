import fs from "node:fs";
import path from "node:path";
import wabt from "wabt";
import { describe, expect, it } from "vitest";
import { LITERAL_SCAN_WASM } from "../../src/store/literal-scan-wasm.js";

describe("the literal scan's wasm", () => {
  it("is literal-scan.wat compiled (rerun scripts/make-literal-scan.mjs after changing it)", async () => {
    const wat = fs.readFileSync(path.join(import.meta.dirname, "../../src/store/literal-scan.wat"), "utf8");
    const module = (await wabt()).parseWat("literal-scan.wat", wat, { simd: true });
    try {
      module.validate();
      expect(Buffer.from(module.toBinary({}).buffer).toString("base64")).toBe(LITERAL_SCAN_WASM);
    } finally {
      module.destroy();
    }
  });
});
