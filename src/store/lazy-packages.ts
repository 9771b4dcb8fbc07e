/**
 * Packages only some runs need (a JSON5 config, zstd on a Node without native zstd), loaded on
 * first use: loading them eagerly cost every command ~15 ms of start-up.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

type Fzstd = typeof import("fzstd");
let fzstd: Fzstd | undefined;

/** fzstd, the pure-JS zstd decoder. */
export function fzstdPackage(): Fzstd {
  fzstd ??= require("fzstd") as Fzstd;
  return fzstd;
}

interface Json5 {
  parse(text: string): unknown;
}
let json5: Json5 | undefined;

export function json5Package(): Json5 {
  json5 ??= require("json5") as Json5;
  return json5;
}
