/** The corpus fixtures (copied from shared/corpus) and their expected.json ground truth. */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PlanStep } from "../../conformance/lib/timeline-plan.mjs";
import { tempDir } from "./temp.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CORPUS = path.join(ROOT, "fixtures/corpus");

export function fileScenarios(): string[] {
  return fs
    .readdirSync(path.join(CORPUS, "files"))
    .filter((n) => fs.existsSync(path.join(CORPUS, "files", n, "expected.json")))
    .sort();
}

export function sqliteScenarios(): string[] {
  return fs
    .readdirSync(path.join(CORPUS, "sqlite"))
    .filter((n) => fs.existsSync(path.join(CORPUS, "sqlite", n, "expected.json")))
    .sort();
}

export function scenarioDir(era: "files" | "sqlite", name: string): string {
  return path.join(CORPUS, era, name);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function expectedOf(era: "files" | "sqlite", name: string): any {
  return JSON.parse(fs.readFileSync(path.join(CORPUS, era, name, "expected.json"), "utf8"));
}

/** Copy a whole scenario state dir into a fresh temp dir (tests that might write, or need a clean HOME). */
export function copyState(era: "files" | "sqlite", name: string): { stateDir: string; home: string; root: string } {
  const root = tempDir(`ocs-${name}-`);
  const stateDir = path.join(root, "state");
  fs.cpSync(path.join(CORPUS, era, name, "state"), stateDir, { recursive: true, verbatimSymlinks: true });
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  return { stateDir, home, root };
}

/** Replace expected.json's $STATE / $HOME placeholders with real paths. */
export function sub(p: string | null | undefined, stateDir: string, home: string): string | null {
  if (p === null || p === undefined) return null;
  return p.replace(/^\$STATE/, stateDir).replace(/^\$HOME/, home);
}

/** sha256 of every file under a dir, for byte-identity checks. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isSymbolicLink()) out[path.relative(dir, full)] = `link:${fs.readlinkSync(full)}`;
      // FIFOs, sockets and devices are never read (a FIFO would block): their kind is their content.
      else if (!e.isFile()) out[path.relative(dir, full)] = `special:${e.isFIFO() ? "fifo" : e.isSocket() ? "socket" : "device"}`;
      else out[path.relative(dir, full)] = crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

/** What fixtures/check-clean/<era>/<name>/manifest.json records of how its store was written. */
export interface WrittenManifest {
  /** The instant to check the store at (its plan's clock), null for now. */
  checkAt: string | null;
  keys?: Record<string, string>;
  /** Each step of its random plan, with what OpenClaw answered. */
  steps: PlanStep[];
}

/** The stores OpenClaw's own code wrote (fixtures/check-clean/<era>/<name>), each with its manifest. */
export function openclawWrittenStores(): Array<{ era: "files" | "sqlite"; name: string; stateDir: string; manifest: WrittenManifest }> {
  const written = path.join(ROOT, "fixtures", "check-clean");
  return (["files", "sqlite"] as const).flatMap((era) =>
    fs
      .readdirSync(path.join(written, era))
      .sort()
      .map((name) => ({
        era,
        name,
        stateDir: path.join(written, era, name, "state"),
        manifest: JSON.parse(fs.readFileSync(path.join(written, era, name, "manifest.json"), "utf8")) as WrittenManifest,
      })),
  );
}
