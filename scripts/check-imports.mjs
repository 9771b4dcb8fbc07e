/**
 * The house plan over the import graph of src/: layers `cli → render → commands → store → core`
 * (a file imports only from its own layer or a lower one), `core/` never touches the filesystem,
 * and no import cycle. Every import counts: static, `import type`, `export … from`, `import()` and
 * `import("…").T` type references. Prints each violation on one line and exits 1 if there is any.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The project root (or the one given as the first argument: the script's own test runs it on a temp tree). */
const ROOT = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), ".."));
const SRC = path.join(ROOT, "src");
/** Highest first: a file may import its own layer or any layer after it. */
const LAYERS = ["cli", "render", "commands", "store", "core"];
/** Node modules core/ may not import: core is pure logic on plain data. */
const CORE_FORBIDDEN = new Set(["node:fs", "node:fs/promises", "fs", "fs/promises"]);

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

/** Every module specifier a file names, with the line it is on. */
function specifiers(file) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const add = (lit) => {
    if (lit && ts.isStringLiteralLike(lit)) out.push({ spec: lit.text, line: sf.getLineAndCharacterOfPosition(lit.getStart()).line + 1 });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A relative specifier as the .ts file it names (NodeNext: `./x.js` is `./x.ts`). */
function resolveLocal(from, spec) {
  if (!spec.startsWith(".")) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const layerOf = (file) => LAYERS.indexOf(path.relative(SRC, file).split(path.sep)[0]);
const rel = (file) => path.relative(ROOT, file);

const files = sourceFiles(SRC);
const graph = new Map();
const problems = [];

for (const file of files) {
  const edges = new Set();
  const layer = layerOf(file);
  if (layer < 0) problems.push(`${rel(file)}: outside every layer (${LAYERS.join(", ")})`);
  for (const { spec, line } of specifiers(file)) {
    if (LAYERS[layer] === "core" && CORE_FORBIDDEN.has(spec)) problems.push(`${rel(file)}:${line}: core imports ${spec}`);
    if (!spec.startsWith(".")) continue;
    const target = resolveLocal(file, spec);
    if (!target) {
      problems.push(`${rel(file)}:${line}: unresolved import ${spec}`);
      continue;
    }
    // Files outside src/ (package.json) are data, not layers.
    if (!target.startsWith(SRC + path.sep)) continue;
    edges.add(target);
    const targetLayer = layerOf(target);
    if (targetLayer >= 0 && layer >= 0 && targetLayer < layer) {
      problems.push(`${rel(file)}:${line}: ${LAYERS[layer]} imports ${LAYERS[targetLayer]} (${rel(target)})`);
    }
  }
  graph.set(file, edges);
}

// Tarjan's strongly connected components: every component with more than one file (or a file
// importing itself) is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
function strongConnect(v) {
  index.set(v, counter);
  low.set(v, counter);
  counter++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!index.has(w)) {
      strongConnect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).has(v)) problems.push(`import cycle: ${component.map(rel).sort().join(" ↔ ")}`);
  }
}
for (const file of files) if (!index.has(file)) strongConnect(file);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`check-imports: ${problems.length} problem(s) in ${files.length} files`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, ${[...graph.values()].reduce((n, e) => n + e.size, 0)} imports, layers and cycles ok`);
