/** The colours a text reporter writes with: one chalk instance at the level the CLI chose at start-up. */
import { Chalk, type ChalkInstance } from "chalk";

export type ColorLevel = 0 | 1 | 2 | 3;

export interface Style {
  level: ColorLevel;
  c: ChalkInstance;
}

export function makeStyle(level: ColorLevel): Style {
  return { level, c: new Chalk({ level }) };
}
