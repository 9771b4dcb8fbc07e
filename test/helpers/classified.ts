/** A file as the walk of a sessions dir classifies it (scan.ts), made from its name alone: for attribution's pure tests. */
import type { ClassifiedFile } from "../../src/core/model.js";
import { classifyName } from "../../src/core/names.js";

export function classifiedByName(dir: string, name: string): ClassifiedFile {
  return { path: `${dir}/${name}`, relPath: name, name, bytes: 1, mtimeMs: 0, symlink: false, ...classifyName(name) };
}
