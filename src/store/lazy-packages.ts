/**
 * Packages only some runs need (a JSON5 config), loaded on first use: loading them eagerly cost
 * every command start-up time.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

interface Json5 {
  parse(text: string): unknown;
}
let json5: Json5 | undefined;

export function json5Package(): Json5 {
  json5 ??= require("json5") as Json5;
  return json5;
}
