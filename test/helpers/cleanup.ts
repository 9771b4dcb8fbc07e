/**
 * Per test file (vitest setupFiles): the store sessions a test opened close when it ends, and the
 * temp dirs its file's tests made go when they all end.
 */
import { afterAll, afterEach } from "vitest";
import { closeStoreSessions } from "./store-context.js";
import { removeTempDirs } from "./temp.js";

afterEach(closeStoreSessions);
afterAll(removeTempDirs);
