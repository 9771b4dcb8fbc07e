/** Every --json document validates against its published schema in docs/schema/. */
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { ROOT, copyState, scenarioDir } from "../helpers/corpus.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
function validator(name: string) {
  if (!compiled.has(name))
    compiled.set(name, ajv.compile(JSON.parse(fs.readFileSync(path.join(ROOT, "docs/schema", `${name}.schema.json`), "utf8"))));
  return compiled.get(name)!;
}

const files = (s: string) => path.join(scenarioDir("files", s), "state");
const sqlite = (s: string) => path.join(scenarioDir("sqlite", s), "state");
const KEY = "agent:main:telegram:direct:424242";

const CASES: Array<[schema: string, argv: string[]]> = [
  ["ls", ["ls", "--json", "--state-dir", files("reset-chain")]],
  ["ls", ["ls", "--json", "--state-dir", files("store-empty")]],
  ["ls", ["ls", "--json", "--all-agents", "--state-dir", sqlite("sqlite-basic")]],
  ["history", ["history", KEY, "--json", "--state-dir", files("reset-chain")]],
  ["history", ["history", KEY, "--archived", "--json", "--state-dir", files("reset-chain")]],
  ["history", ["history", "agent:main:main", "--archived", "--json", "--state-dir", sqlite("sqlite-reset")]],
  ["timeline", ["timeline", KEY, "--json", "--state-dir", files("reset-chain")]],
  ["timeline", ["timeline", "--json", "--state-dir", sqlite("sqlite-reset")]],
  ["check", ["check", "--json", "--state-dir", files("corrupt-transcripts")]],
  ["check", ["check", "--json", "--state-dir", sqlite("sqlite-deleted")]],
  ["verify-import", ["verify-import", "--json", "--state-dir", sqlite("doctor-import")]],
  ["check", ["check", "--json", "--state-dir", sqlite("doctor-import")]],
  ["grep", ["grep", "milk", "--json", "--state-dir", files("reset-chain")]],
  ["context-pack", ["context-pack", KEY, "--segments", "3", "--json", "--state-dir", files("reset-chain")]],
  ["context-pack", ["context-pack", KEY, "--segments", "3", "--max-chars", "80", "--json", "--state-dir", files("reset-chain")]],
  [
    "context-pack",
    ["context-pack", "agent:main:main", "--since", "2020-01-01", "--include-current", "--json", "--state-dir", sqlite("sqlite-reset")],
  ],
  ["compactions", ["compactions", "agent:main:main", "--show", "1", "--json", "--state-dir", files("single-active")]],
  ["compactions", ["compactions", "--json", "--state-dir", files("manual-compact-bak")]],
  ["compactions", ["compactions", "--all-agents", "--json", "--state-dir", sqlite("sqlite-basic")]],
  ["context-pack", ["context-pack", "agent:main:main", "--compaction", "1", "--json", "--state-dir", files("single-active")]],
  ["timeline", ["timeline", "agent:main:main", "--json", "--state-dir", files("manual-compact-bak")]],
  ["skill-install", ["skill", "install", "--json", "--state-dir", sqlite("sqlite-reset")]],
  ["history", ["history", "agent:main:main", "--segment", "2", "--json", "--state-dir", sqlite("sqlite-reset")]],
  [
    "restore",
    ["restore", "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z", "--json", "--state-dir", files("reset-chain")],
  ],
  ["restore", ["restore", "--key", "agent:main:main", "--segment", "1", "--json", "--state-dir", sqlite("sqlite-reset")]],
  [
    "restore",
    [
      "restore",
      "896b0937-ca5a-49f5-a00e-8de023b7a034.jsonl.deleted.2026-11-30T01-45-34.142Z.3eb20961b0cd4a7181537b66f5edef28.zst",
      "--json",
      "--state-dir",
      sqlite("sqlite-deleted"),
    ],
  ],
  ["index", ["index", "--json", "--state-dir", files("reset-chain")]],
  ["index", ["index", "--json", "--state-dir", sqlite("sqlite-basic")]],
  ["error", ["ls", "--json", "--state-dir", "/nonexistent/state"]],
  ["error", ["history", "agent:nope", "--json", "--state-dir", files("reset-chain")]],
  ["error", ["restore", "x.jsonl.reset.2026-01-01T00-00-00.000Z", "--json", "--state-dir", sqlite("sqlite-reset")]],
];

describe("JSON documents match docs/schema/*.schema.json", () => {
  for (const [schema, argv] of CASES) {
    it(`${schema}: ${argv.slice(0, 3).join(" ")} …`, async () => {
      const r = await cli(argv);
      const doc = r.json();
      const validate = validator(schema);
      expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);
    });
  }

  it("a restore applied on a copy validates too", async () => {
    const { stateDir, root } = copyState("files", "reset-chain");
    const r = await cli([
      "restore",
      "998635a2-5338-4ec7-bf4f-ba73a726d208.jsonl.reset.2026-07-01T09-10-16.000Z",
      "--json",
      "--yes",
      "--state-dir",
      stateDir,
      "--manifest-dir",
      path.join(root, "manifests"),
    ]);
    expect(r.code).toBe(0);
    const validate = validator("restore");
    expect(validate(r.json()), JSON.stringify(validate.errors)).toBe(true);
    expect(r.json().manifest).toMatch(/manifest\.json$/);
  });
});
