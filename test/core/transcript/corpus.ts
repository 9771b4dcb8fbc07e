/** Test-only access to the corpus fixtures (fs lives here, not in src/core). */
import fs from "node:fs";
import path from "node:path";
import { fileLines } from "../../../src/store/lines.js";
import type { OpenLines } from "../../../src/core/transcript/scan.js";

export const CORPUS = path.resolve(import.meta.dirname, "../../../fixtures/corpus");

export const scenarios = (era: "files" | "sqlite"): string[] =>
  fs
    .readdirSync(path.join(CORPUS, era))
    .filter((d) => fs.existsSync(path.join(CORPUS, era, d, "expected.json")))
    .sort();

export const readExpected = (era: "files" | "sqlite", scenario: string): any =>
  JSON.parse(fs.readFileSync(path.join(CORPUS, era, scenario, "expected.json"), "utf8"));

export const statePath = (scenario: string, p: string): string => p.replace("$STATE", path.join(CORPUS, "files", scenario, "state"));

export const openFile =
  (file: string): OpenLines =>
  () =>
    fileLines(file);
