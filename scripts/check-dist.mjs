/**
 * The installed package is dist/ and bin/ with no node_modules: every module their code loads must
 * be a Node builtin or a file shipped beside it. Finds each one the code names — `import`/`export
 * … from`, `import()`, `import.meta.resolve()`, and calls of `require`, esbuild's `__require` or
 * any function made by `createRequire()` (which esbuild leaves unbundled) — and exits 1 naming
 * each that is neither, and each such call whose module it cannot read (not a string literal).
 * Run by scripts/build.mjs after every build; `npm test` builds first.
 */
import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import ts from "typescript";

/** The package root (or the one given as the first argument: the script's own test runs it on a temp tree). */
const ROOT = path.resolve(process.argv[2] ?? path.join(path.dirname(new URL(import.meta.url).pathname), ".."));
/** The shipped code: a module may load a file of these dirs or a builtin, nothing else. */
const SHIPPED = ["dist", "bin"].map((d) => path.join(ROOT, d));

function codeFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return codeFiles(p);
    return /\.(c|m)?js$/.test(e.name) ? [p] : [];
  });
}

const REQUIRE_NAMES = /^(require|__require)\d*$/;

/** Names that call a CommonJS loader: `require`, `__require`, and what `createRequire()` returned. */
function loaderNames(sf) {
  const makers = new Set(["createRequire"]);
  const loaders = new Set();
  const visit = (node) => {
    if (ts.isImportSpecifier(node)) {
      const imported = (node.propertyName ?? node.name).text;
      if (imported === "createRequire") makers.add(node.name.text);
      if (REQUIRE_NAMES.test(imported)) loaders.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const isMakerCall = (e) => {
    if (!e || !ts.isCallExpression(e)) return false;
    const callee = e.expression;
    return (
      (ts.isIdentifier(callee) && makers.has(callee.text)) ||
      (ts.isPropertyAccessExpression(callee) && callee.name.text === "createRequire")
    );
  };
  const bind = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isMakerCall(node.initializer)) loaders.add(node.name.text);
    ts.forEachChild(node, bind);
  };
  bind(sf);
  return { loaders, isMakerCall };
}

/** Every module a file loads, with its line; `spec` is null where the code computes it. */
function loadsOf(file) {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const { loaders, isMakerCall } = loaderNames(sf);
  const out = [];
  const lineOf = (node) => sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const add = (how, arg, at) => out.push({ how, spec: arg && ts.isStringLiteralLike(arg) ? arg.text : null, line: lineOf(arg ?? at) });
  const isLoader = (callee) => {
    const e = ts.isPropertyAccessExpression(callee) && callee.name.text === "resolve" ? callee.expression : callee;
    return (ts.isIdentifier(e) && (loaders.has(e.text) || REQUIRE_NAMES.test(e.text))) || isMakerCall(e);
  };
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) add("imports", node.moduleSpecifier, node);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const paren = ts.isParenthesizedExpression(callee) ? callee.expression : callee;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add("imports", node.arguments[0], node);
      else if (ts.isPropertyAccessExpression(callee) && callee.name.text === "resolve" && ts.isMetaProperty(callee.expression))
        add("resolves", node.arguments[0], node);
      else if (isLoader(paren)) add("requires", node.arguments[0], node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Whether a relative (or file) specifier names a file of the shipped dirs. */
function shipped(from, spec) {
  let target;
  if (spec.startsWith("file:")) target = new URL(spec).pathname;
  else if (spec.startsWith(".") || path.isAbsolute(spec)) target = path.resolve(path.dirname(from), spec);
  else return false;
  const inside = SHIPPED.some((d) => !path.relative(d, target).startsWith("..") && !path.isAbsolute(path.relative(d, target)));
  return inside && fs.existsSync(target) && fs.statSync(target).isFile();
}

const files = SHIPPED.flatMap(codeFiles);
const problems = [];
let loads = 0;
if (!files.some((f) => f.startsWith(path.join(ROOT, "dist") + path.sep)))
  problems.push(`${path.join(ROOT, "dist")}: no built code (run npm run build)`);
for (const file of files) {
  for (const { how, spec, line } of loadsOf(file)) {
    loads++;
    const where = `${path.relative(ROOT, file)}:${line}`;
    if (spec === null) problems.push(`${where}: ${how} a module named at run time, which this check cannot see`);
    else if (!isBuiltin(spec) && !shipped(file, spec))
      problems.push(`${where}: ${how} ${JSON.stringify(spec)}, neither a Node builtin nor a file shipped in dist/ (bundle it)`);
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`check-dist: ${problems.length} problem(s) in ${files.length} files; the installed package has no node_modules`);
  process.exit(1);
}
console.log(`check-dist: ${files.length} files, ${loads} module loads, each a Node builtin or a shipped file`);
