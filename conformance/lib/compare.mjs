/**
 * How the checks compare what this tool shows with what OpenClaw reads, and a store before and
 * after: a conversation's texts, a dir's files by content, a database's rows; and `addUp`, a check's
 * figures summed over its keys and stores.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The conversation of a message list: its user, assistant and tool-result texts, in order. */
export const texts = (messages) =>
  messages.filter((m) => ["user", "assistant", "toolResult"].includes(m.role)).map((m) => `${m.role}:${(m.text ?? "").trim()}`);

/** Every file under `dir` (relative path → sha256), sub-dirs walked; anything else by its kind. */
export function hashTree(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(d, e.name);
      const rel = path.relative(dir, full);
      if (e.isDirectory()) walk(full);
      else out[rel] = e.isFile() ? crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex") : "(other)";
    }
  };
  walk(dir);
  return out;
}

/** Every row of every table (FTS shadow tables aside), for "undo is exact". */
export function dumpDb(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const out = {};
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
    for (const { name } of tables)
      out[name] = db
        .prepare(`SELECT * FROM "${name}"`)
        .all()
        .map((r) =>
          JSON.stringify(r, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : typeof v === "bigint" ? String(v) : v)),
        )
        .sort();
    return JSON.stringify(out);
  } finally {
    db.close();
  }
}

/** Adds each figure of `counts` to `total`'s (missing ones start at 0); returns `total`. */
export function addUp(total, counts) {
  for (const [name, n] of Object.entries(counts)) total[name] = (total[name] ?? 0) + n;
  return total;
}
