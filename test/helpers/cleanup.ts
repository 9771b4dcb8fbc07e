/**
 * Per test file (vitest setupFiles): a private index cache dir, the store sessions a test opened close when it ends, and the
 * temp dirs its file's tests made go when they all end.
 */
import { afterAll, afterEach } from "vitest";
import { closeStoreSessions } from "./store-context.js";
import { removeTempDirs, tempPathNotMade } from "./temp.js";

// The index cache of every run this file starts (in-process or a child that inherits the env):
// private to the file, gone with its temp dirs. Made by the first run that writes it: a file whose
// tests all skip (Chromium absent) runs no afterAll, and must leave nothing.
process.env.XDG_CACHE_HOME = tempPathNotMade("ocs-cache-");

afterEach(closeStoreSessions);
afterAll(removeTempDirs);
