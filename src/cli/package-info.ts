/**
 * Where the installed package lives, for pointers an installed user can open (`docs/json.md` of
 * the package, not of a checkout they do not have). Found by walking up from this module to the
 * package.json that names the tool, so it holds in the source tree, in dist/ and in a bundle.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | null | undefined;

export function packageRoot(): string | null {
  if (root !== undefined) return root;
  root = null;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const pkg = path.join(dir, "package.json");
    try {
      if ((JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name === "openclaw-sessions") {
        root = dir;
        break;
      }
    } catch {
      // no package.json here: keep walking up
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return root;
}

/** The absolute path of a doc of the installed package (docs/<name>), or `docs/<name>` if the package root is unknown. */
export function docsPath(name: string): string {
  const r = packageRoot();
  return r ? path.join(r, "docs", name) : `docs/${name}`;
}
