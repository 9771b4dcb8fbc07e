/** Per test file (vitest setupFiles): the temp dirs its tests made go when its tests end. */
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp.js";

afterAll(removeTempDirs);
