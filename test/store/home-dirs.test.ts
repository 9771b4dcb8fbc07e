/** The tool's own dirs: an absolute XDG variable, else the default under HOME, else under the OS's home. */
import os from "node:os";
import { describe, expect, it } from "vitest";
import { homedir, xdgBaseDir } from "../../src/store/home-dirs.js";
import { indexDir } from "../../src/store/cache/location.js";
import { defaultManifestDir } from "../../src/store/restore-runs.js";
import { defaultVaultDir } from "../../src/store/vault/vault.js";

describe("xdgBaseDir", () => {
  it("takes an absolute variable (trimmed), ignores a relative or blank one for HOME's default, and the OS's home without HOME", () => {
    expect(xdgBaseDir({ XDG_CACHE_HOME: " /x/cache ", HOME: "/h" }, "XDG_CACHE_HOME")).toBe("/x/cache");
    expect(xdgBaseDir({ XDG_CACHE_HOME: "rel/cache", HOME: "/h" }, "XDG_CACHE_HOME")).toBe("/h/.cache");
    expect(xdgBaseDir({ XDG_STATE_HOME: "  ", HOME: " /h " }, "XDG_STATE_HOME")).toBe("/h/.local/state");
    expect(xdgBaseDir({ HOME: "/h" }, "XDG_DATA_HOME")).toBe("/h/.local/share");
    expect(xdgBaseDir({}, "XDG_DATA_HOME")).toBe(`${os.homedir()}/.local/share`);
    expect(homedir()).toBe(os.homedir());
  });

  it("places the index, the restore manifests and the vault", () => {
    const env = { HOME: "/h", XDG_DATA_HOME: "/d" };
    expect(indexDir(env)).toBe("/h/.cache/openclaw-sessions/index");
    expect(defaultManifestDir(env)).toBe("/h/.local/state/openclaw-sessions/restores");
    expect(defaultVaultDir(env)).toBe("/d/openclaw-sessions/vault");
  });
});
