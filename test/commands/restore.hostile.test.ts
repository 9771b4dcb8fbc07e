/**
 * restore and undo treat every input of a write as untrusted: manifests naming files outside the
 * store, symlinks on the path, a symlinked manifest dir, stale temps, a running gateway. Each is
 * refused (exit 5) with nothing touched, or handled; none is an internal error.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { copyState, hashTree } from "../helpers/corpus.js";

const GEN3 = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl.reset.2026-07-01T09-15-21.500Z";
const GEN4 = "f1091dc4-aaaf-4980-b920-36af23252a48";
const DEST = "9648af9a-0de1-40ec-bd5a-136426cbdd39.jsonl";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function setup() {
  const s = copyState("files", "reset-chain");
  roots.push(s.root);
  const sessions = path.join(s.stateDir, "agents/main/sessions");
  const manifests = path.join(s.root, "manifests");
  const env = { HOME: s.home, TMPDIR: path.join(s.root, "tmp") };
  const run = (...args: string[]) => cli(["restore", "--state-dir", s.stateDir, "--manifest-dir", manifests, ...args], { env });
  const undo = (manifest: string, ...args: string[]) => cli(["restore", "--undo", manifest, "--yes", "--json", ...args], { env });
  return { ...s, sessions, manifests, env, run, undo };
}

async function restoredRun(s: ReturnType<typeof setup>) {
  const r = await s.run(GEN3, "--yes", "--json");
  expect(r.code, r.stderr).toBe(0);
  const file = r.json().manifest as string;
  return { file, manifest: JSON.parse(fs.readFileSync(file, "utf8")) };
}

const sha = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");

describe("undo trusts no path in the manifest", () => {
  const cases: Array<[string, (m: any, outside: string, s: ReturnType<typeof setup>) => void]> = [
    [
      "a step file outside the store (with that file's hash)",
      (m, outside) => {
        const place = m.steps.find((x: any) => x.step === "place-transcript");
        place.files[0].path = outside;
        place.files[0].sha256After = sha(fs.readFileSync(outside));
      },
    ],
    [
      "a step file reached through ..",
      (m, outside, s) => {
        const place = m.steps.find((x: any) => x.step === "place-transcript");
        place.files[0].path = `${s.sessions}/../../../../${path.basename(path.dirname(outside))}/${path.basename(outside)}`;
      },
    ],
    [
      "a sessions dir that is not the store",
      (m, outside) => {
        m.sessionsDir = path.dirname(outside);
      },
    ],
    [
      "a backup path outside the run dir",
      (m, outside) => {
        m.backups.store = outside;
      },
    ],
    [
      "a runId that is not its run dir",
      (m) => {
        m.runId = "2026-01-01T00-00-00.000Z-00000000";
      },
    ],
  ];
  for (const [what, edit] of cases) {
    it(`${what}: refused (exit 5), nothing inside or outside touched`, async () => {
      const s = setup();
      const { file, manifest } = await restoredRun(s);
      const outsideDir = path.join(s.root, "precious");
      fs.mkdirSync(outsideDir);
      const outside = path.join(outsideDir, "notes.txt");
      fs.writeFileSync(outside, "do not delete\n");
      edit(manifest, outside, s);
      fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
      const store = hashTree(s.stateDir);
      const u = await s.undo(file);
      expect(u.code, u.stderr).toBe(5);
      expect(u.json().error.code).toBe("MANIFEST_INVALID");
      expect(fs.readFileSync(outside, "utf8")).toBe("do not delete\n");
      expect(hashTree(s.stateDir)).toEqual(store);
    });
  }

  it("a manifest copied elsewhere, or reached through a symlink, is refused", async () => {
    const s = setup();
    const { file } = await restoredRun(s);
    const copy = path.join(s.root, "manifest.json");
    fs.copyFileSync(file, copy);
    const store = hashTree(s.stateDir);
    expect((await s.undo(copy)).code).toBe(5);
    const link = path.join(s.root, "link.json");
    fs.symlinkSync(file, link);
    const viaLink = await s.undo(link);
    expect(viaLink.code).toBe(5);
    expect(viaLink.json().error.code).toBe("SYMLINK_REFUSED");
    expect(hashTree(s.stateDir)).toEqual(store);
  });

  it("store options that name another store: refused", async () => {
    const s = setup();
    const { file } = await restoredRun(s);
    const other = copyState("files", "reset-chain");
    roots.push(other.root);
    const u = await s.undo(file, "--state-dir", other.stateDir);
    expect(u.code).toBe(5);
    expect(u.json().error.code).toBe("MANIFEST_STORE_MISMATCH");
    expect((await s.undo(file, "--state-dir", s.stateDir)).code).toBe(0);
  });

  it("temps an older version or a killed attempt left under this run's name do not block undo; they are removed", async () => {
    const s = setup();
    const { file, manifest } = await restoredRun(s);
    const runDir = path.dirname(file);
    const stale = [
      path.join(s.sessions, `.sessions.json.${manifest.runId}.tmp`), // the fixed name of earlier releases
      path.join(s.sessions, `.sessions.json.${manifest.runId}.0badc0de.tmp`),
      path.join(runDir, `.manifest.json.${manifest.runId}.tmp`),
    ];
    for (const t of stale) fs.writeFileSync(t, "partial");
    const u = await s.undo(file);
    expect(u.code, u.stderr).toBe(0);
    for (const t of stale) expect(fs.existsSync(t), t).toBe(false);
  });
});

describe("symlinks on the write path", () => {
  it("a current transcript that is a symlink to a file outside the store: refused (exit 5), nothing touched", async () => {
    const s = setup();
    const current = path.join(s.sessions, `${GEN4}.jsonl`);
    const outside = path.join(s.root, "outside.jsonl");
    fs.renameSync(current, outside);
    fs.symlinkSync(outside, current);
    const before = hashTree(s.stateDir);
    const outsideBytes = fs.readFileSync(outside);
    const r = await s.run(GEN3, "--yes", "--json");
    expect(r.code, r.stderr).toBe(5);
    expect(r.json().refusals.map((x: { code: string }) => x.code)).toContain("SYMLINK_REFUSED");
    expect(hashTree(s.stateDir)).toEqual(before);
    expect(fs.readFileSync(outside)).toEqual(outsideBytes);
    expect(fs.existsSync(s.manifests)).toBe(false);
  });

  it("a dangling symlink at the destination: TARGET_EXISTS (exit 5), not an internal error", async () => {
    const s = setup();
    fs.symlinkSync(path.join(s.root, "nowhere.jsonl"), path.join(s.sessions, DEST));
    const before = hashTree(s.stateDir);
    const r = await s.run(GEN3, "--yes", "--json");
    expect(r.code, r.stderr).toBe(5);
    const refusal = r.json().refusals.find((x: { code: string }) => x.code === "TARGET_EXISTS");
    expect(refusal.message).toContain("symbolic link");
    expect(hashTree(s.stateDir)).toEqual(before);
  });

  it("a --manifest-dir that is a symlink (into the sessions dir, or anywhere): refused; nothing lands in the store", async () => {
    const s = setup();
    const before = hashTree(s.stateDir);
    const intoStore = path.join(s.root, "into-store");
    fs.symlinkSync(s.sessions, intoStore);
    const r = await cli(["restore", "--state-dir", s.stateDir, "--manifest-dir", intoStore, GEN3, "--yes", "--json"], { env: s.env });
    expect(r.code).toBe(5);
    expect(r.json().error.code).toBe("SYMLINK_REFUSED");
    // a real dir whose path runs through a symlinked parent into the store: inside the store
    const parentLink = path.join(s.root, "parent-link");
    fs.symlinkSync(path.dirname(s.sessions), parentLink);
    const viaParent = await cli(
      ["restore", "--state-dir", s.stateDir, "--manifest-dir", path.join(parentLink, "sessions", "runs"), GEN3, "--yes", "--json"],
      { env: s.env },
    );
    expect(viaParent.code).toBe(2);
    expect(viaParent.json().error.code).toBe("MANIFEST_DIR_IN_STORE");
    expect(hashTree(s.stateDir)).toEqual(before);
  });
});

describe("a running OpenClaw 7.1 gateway for the state dir", () => {
  it("restore and undo refuse (exit 5), name the pid and how to stop it, write nothing", async () => {
    const s = setup();
    const { file } = await restoredRun(s);
    const lockDir = path.join(s.root, "tmp", `openclaw-${process.getuid!()}`);
    fs.mkdirSync(lockDir, { recursive: true });
    const configPath = path.join(s.stateDir, "openclaw.json");
    const stat = fs.readFileSync(`/proc/${process.pid}/stat`, "utf8");
    const startTime = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    const name = `gateway.${sha(configPath).slice(0, 8)}.lock`;
    fs.writeFileSync(
      path.join(lockDir, name),
      JSON.stringify({ pid: process.pid, createdAt: new Date().toISOString(), configPath, startTime }),
    );
    const before = hashTree(s.stateDir);
    const runsBefore = fs.readdirSync(s.manifests);

    const u = await s.undo(file);
    expect(u.code).toBe(5);
    expect(u.json().error.code).toBe("GATEWAY_RUNNING");
    expect(u.json().error.message).toContain(`pid ${process.pid}`);
    expect(u.json().error.hint).toContain("openclaw gateway stop");

    const other = "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z";
    const r = await s.run(other, "--key", "agent:main:telegram:direct:424242", "--yes", "--json");
    expect(r.code).toBe(5);
    expect(r.json().refusals.map((x: { code: string }) => x.code)).toContain("GATEWAY_RUNNING");
    expect(r.stderr).toContain("openclaw gateway stop");
    expect(hashTree(s.stateDir)).toEqual(before);
    expect(fs.readdirSync(s.manifests)).toEqual(runsBefore);
  });
});
