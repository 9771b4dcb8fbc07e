/**
 * Finds functions in an OpenClaw package's dist by their definitions (chunk names are content
 * hashes): an exported one by its export alias, a private one by loading a copy of its chunk that
 * exports it too. The copy lives in a temp dir and imports the package's other chunks by absolute
 * URL, so every module it shares with the package is the package's own instance. One pass over
 * the dist finds every name asked for.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const defines = (text, fn) =>
  text.includes(`function ${fn}(`) || text.includes(`class ${fn} `) || text.includes(`const ${fn} =`) || text.includes(`let ${fn} =`);

/** The name a chunk exports `fn` under, or null. */
function exportAlias(text, fn) {
  return new RegExp(`\\b${fn} as ([\\w$]+)`).exec(text)?.[1] ?? (new RegExp(`export \\{[^}]*\\b${fn}\\b[^}]*\\}`).test(text) ? fn : null);
}

/** Each name → the first chunk of `dist` that defines it (and, for an exported name, exports it). */
function chunksDefining(dist, exported, hidden) {
  const found = new Map();
  const names = [...exported, ...hidden];
  for (const name of fs.readdirSync(dist).sort()) {
    if (!/\.m?js$/.test(name) || found.size === names.length) continue;
    const text = fs.readFileSync(path.join(dist, name), "utf8");
    for (const fn of names) {
      if (found.has(fn) || !defines(text, fn)) continue;
      const alias = exported.includes(fn) ? exportAlias(text, fn) : null;
      if (exported.includes(fn) && !alias) continue;
      found.set(fn, { file: path.join(dist, name), text, alias });
    }
  }
  const missing = names.filter((fn) => !found.has(fn));
  if (missing.length > 0) throw new Error(`no chunk of ${dist} defines (and exports) ${missing.join(", ")}`);
  return found;
}

/** The chunk's text with every relative import made absolute, plus `export { fn as __exposed_fn }`. */
function exposedCopy(chunk, fn, tmpDir) {
  const base = `${pathToFileURL(path.dirname(chunk.file)).href}/`;
  const text = chunk.text.replace(/(from\s*|import\s*\(\s*|import\s*)"\.\/([^"]+)"/g, (_m, pre, rel) => `${pre}"${base}${rel}"`);
  const out = path.join(tmpDir, `exposed-${fn}-${path.basename(chunk.file)}`);
  fs.writeFileSync(out, `${text}\nexport { ${fn} as __exposed_${fn} };\n`);
  return out;
}

/**
 * Loads `exported` (by export alias) and `hidden` (private, through an exposed copy of the chunk)
 * functions of the package at `packageDir`. Returns { [name]: function | class }.
 */
export async function distFunctions(packageDir, { exported = [], hidden = [], tmpDir }) {
  const dist = path.join(packageDir, "dist");
  const chunks = chunksDefining(dist, exported, hidden);
  const out = {};
  for (const fn of exported) {
    const { file, alias } = chunks.get(fn);
    const mod = await import(pathToFileURL(file).href);
    if (mod[alias] === undefined) throw new Error(`${path.basename(file)}: export ${alias} (${fn}) is undefined`);
    out[fn] = mod[alias];
  }
  for (const fn of hidden) {
    const mod = await import(pathToFileURL(exposedCopy(chunks.get(fn), fn, tmpDir)).href);
    out[fn] = mod[`__exposed_${fn}`];
  }
  return out;
}
