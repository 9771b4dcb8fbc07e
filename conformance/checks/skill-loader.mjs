// The shipped skill (skills/openclaw-sessions) as OpenClaw 2026.9.6 sees it: installed with our own
// `skill install` into a fresh workspace, then listed by OpenClaw's own skill status builder (what
// `openclaw skills list --json` prints), which runs its SKILL.md loader and frontmatter parser.
// OpenClaw runs in a child process with a private state dir and HOME, so nothing of the user's is read.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

/** The dist chunk that defines and exports `buildWorkspaceSkillStatus`, and its export alias. */
function findStatusModule(distDir) {
  for (const name of fs.readdirSync(distDir)) {
    if (!name.endsWith(".mjs")) continue;
    const file = path.join(distDir, name);
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes("function buildWorkspaceSkillStatus(")) continue;
    const alias = /buildWorkspaceSkillStatus as (\w+)/.exec(text)?.[1];
    if (alias) return { file, exportName: alias };
  }
  throw new Error(`no module of ${distDir} exports buildWorkspaceSkillStatus`);
}

const LIST = `
const [moduleFile, exportName, workspaceDir] = process.argv.slice(1);
const mod = await import(moduleFile);
const report = mod[exportName](workspaceDir, { config: {}, agentId: "main" });
process.stdout.write(JSON.stringify(report.skills.map((s) => ({
  name: s.name, description: s.description, source: s.source, filePath: s.filePath,
  requirements: s.requirements, missing: s.missing, install: s.install, emoji: s.emoji,
}))));
`;

export default async function (ctx) {
  const distDir = path.join(ctx.openclaw96Dir, "dist");
  const shipped = path.join(ctx.repoRoot, "skills", "openclaw-sessions", "SKILL.md");
  if (!fs.existsSync(shipped)) throw new Error(`no shipped skill at ${shipped}`);

  const root = fs.mkdtempSync(path.join(ctx.tmpDir, "skill-loader-"));
  const home = path.join(root, "home");
  const state = path.join(root, "state");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(home);
  fs.mkdirSync(state);

  const dry = await ctx.cli(["skill", "install", "--workspace", workspace, "--state-dir", state, "--json"]);
  if (dry.code !== 0) throw new Error(`skill install (dry run) exited ${dry.code}: ${dry.stderr}`);
  if (fs.existsSync(path.join(workspace, "skills"))) throw new Error("the dry run wrote to the workspace");
  const done = await ctx.cli(["skill", "install", "--workspace", workspace, "--state-dir", state, "--yes", "--json"]);
  if (done.code !== 0) throw new Error(`skill install --yes exited ${done.code}: ${done.stderr}`);
  const installed = JSON.parse(done.stdout);
  if (installed.target !== path.join(workspace, "skills", "openclaw-sessions"))
    throw new Error(`installed to ${installed.target}, not <workspace>/skills/openclaw-sessions`);

  const { file, exportName } = findStatusModule(distDir);
  const out = execFileSync(ctx.node, ["--input-type=module", "-e", LIST, file, exportName, workspace], {
    env: { PATH: process.env.PATH ?? "", HOME: home, OPENCLAW_STATE_DIR: state, OPENCLAW_HIDE_BANNER: "1", NO_COLOR: "1" },
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });
  const skills = JSON.parse(out);
  const ours = skills.find((s) => s.name === "openclaw-sessions");
  if (!ours) throw new Error(`OpenClaw 9.6 does not list the skill; it lists ${skills.length}: ${skills.map((s) => s.name).join(", ")}`);
  if (ours.source !== "openclaw-workspace") throw new Error(`listed from source ${ours.source}, not openclaw-workspace`);
  if (fs.realpathSync(ours.filePath) !== fs.realpathSync(path.join(installed.target, "SKILL.md")))
    throw new Error(`listed file ${ours.filePath} is not the installed SKILL.md`);
  if (!/^Recall this chat's past across resets/.test(ours.description ?? ""))
    throw new Error(`description as parsed: ${JSON.stringify(ours.description)}`);
  if (ours.description.length > 160) throw new Error(`description is ${ours.description.length} characters; OpenClaw asks for at most 160`);
  const bins = ours.requirements?.bins ?? [];
  if (JSON.stringify(bins) !== JSON.stringify(["openclaw-sessions"]))
    throw new Error(`requirements.bins as parsed: ${JSON.stringify(ours.requirements)}`);
  const installer = (ours.install ?? []).find((i) => i.kind === "node");
  if (!installer) throw new Error(`no node installer parsed: ${JSON.stringify(ours.install)}`);
  return `OpenClaw 9.6 lists openclaw-sessions from ${ours.source}: requires bins ${bins.join(", ")}, ${ours.missing?.bins?.length ? "missing here" : "present here"}; ${ours.description.length}-char description`;
}
