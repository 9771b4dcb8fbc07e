/** defineCommand: one declaration gets the shared options, its help, and the one error boundary. */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/cli/app.js";
import { brokenRule, defineCommand, pickReporter, withImplied } from "../../src/cli/define-command.js";
import type { CommonOptions } from "../../src/cli/options.js";
import { usageError } from "../../src/core/errors.js";
import type { TextOrJsonReporters } from "../../src/render/reporter.js";

function harness() {
  let stdout = "";
  let stderr = "";
  const app = createApp({
    stdout: { write: (s: string) => ((stdout += s), true), isTTY: false },
    stderr: { write: (s: string) => ((stderr += s), true), isTTY: false },
    stdinIsTTY: false,
    env: { NO_COLOR: "1" },
    cwd: "/work",
  });
  const program = new Command("t").exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  return { app, program, out: () => stdout, err: () => stderr };
}

interface DemoFlags extends CommonOptions {
  loud?: boolean;
}

const seen: Array<{ flags: DemoFlags; name: string | undefined; cwd: string }> = [];

const registerDemo = defineCommand<DemoFlags, [string | undefined]>({
  name: "demo",
  arguments: [["[name]", "who to greet"]],
  description: "a command for the test",
  options: (cmd) => cmd.option("--loud", "shout"),
  help: "\nExamples:\n  $ t demo bob\n",
  async run({ app, flags }, name) {
    seen.push({ flags, name, cwd: app.storeContext().cwd });
    if (name === "nobody") throw usageError("NO_ONE", "nobody to greet");
    app.io.stdout.write(`hello ${name}\n`);
  },
});

describe("defineCommand", () => {
  it("adds the command's own options first, then the store and output options, then its help", async () => {
    const h = harness();
    registerDemo(h.program, h.app);
    const cmd = h.program.commands[0]!;
    const longs = cmd.options.map((o) => o.long);
    expect(longs.slice(0, 3)).toEqual(["--loud", "--state-dir", "--profile"]);
    expect(longs).toEqual(expect.arrayContaining(["--store", "--json", "--tz", "--color", "--no-color", "--quiet", "--debug"]));
    await expect(h.program.parseAsync(["demo", "--help"], { from: "user" })).rejects.toThrow();
    expect(h.out()).toContain("Examples:\n  $ t demo bob\n");
  });

  it("runs the body with its arguments and flags", async () => {
    const h = harness();
    registerDemo(h.program, h.app);
    await h.program.parseAsync(["demo", "ann", "--loud"], { from: "user" });
    expect(h.out()).toBe("hello ann\n");
    expect(seen.at(-1)).toMatchObject({ name: "ann", flags: { loud: true }, cwd: "/work" });
    expect(h.app.exitCode).toBe(0);
  });

  it("maps an error of the body through the one boundary: message, exit code, JSON under --json", async () => {
    const h = harness();
    registerDemo(h.program, h.app);
    await h.program.parseAsync(["demo", "nobody", "--json"], { from: "user" });
    expect(h.app.exitCode).toBe(2);
    expect(h.err()).toBe("openclaw-sessions: nobody to greet\n");
    expect(JSON.parse(h.out())).toMatchObject({ ok: false, error: { code: "NO_ONE" } });
  });

  it("leaves out what a command does not take", () => {
    const h = harness();
    defineCommand({ name: "bare", description: "no store", store: false, output: "no-json", run: async () => undefined })(h.program, h.app);
    const longs = h.program.commands[0]!.options.map((o) => o.long);
    expect(longs).not.toContain("--state-dir");
    expect(longs).not.toContain("--json");
    expect(longs).toContain("--quiet");
  });
});

describe("pickReporter", () => {
  const registry: TextOrJsonReporters<{ n: number }, { unit: string }> = {
    text: async (ctx) => ({ end: (r) => `${r.n} ${ctx.unit}\n` }),
    json: () => ({ end: (r) => `${JSON.stringify(r)}\n` }),
  };

  it("text with the context it is given, without --json", async () => {
    expect((await pickReporter(registry, {}, () => ({ unit: "files" }))).end({ n: 2 })).toBe("2 files\n");
  });

  it("the JSON reporter under --json, and the text context is never made", async () => {
    const reporter = await pickReporter(registry, { json: true }, () => {
      throw usageError("BAD_TIME_ZONE", "a bad --tz fails only a text run");
    });
    expect(reporter.end({ n: 2 })).toBe('{"n":2}\n');
  });
});

describe("flag rules", () => {
  const rules = [
    { oneOf: ["json", "jsonl"], message: "one format" },
    { oneOf: ["json", "format=md"], message: "json or md" },
    { if: ["undo"], not: ["target", "key"], message: "undo alone" },
    { if: ["segment"], needs: ["key", "file"], code: "MISSING_ARGUMENT", message: "segment of what" },
  ];
  const broken = (given: Record<string, unknown>) => {
    const e = brokenRule(rules, given);
    return e ? [e.code, e.message, e.exitCode] : null;
  };

  it("oneOf: at most one given; false and undefined are not given; name=value matches a value", () => {
    expect(broken({ json: true, jsonl: true })).toEqual(["CONFLICTING_OPTIONS", "one format", 2]);
    expect(broken({ json: true, jsonl: false, format: undefined })).toBeNull();
    expect(broken({ json: true, format: "md" })).toEqual(["CONFLICTING_OPTIONS", "json or md", 2]);
    expect(broken({ json: true, format: "json" })).toBeNull();
  });

  it("if/not and if/needs, positional arguments by name, the first broken rule wins", () => {
    expect(broken({ undo: "m.json", target: "a.jsonl" })).toEqual(["CONFLICTING_OPTIONS", "undo alone", 2]);
    expect(broken({ undo: "m.json" })).toBeNull();
    expect(broken({ segment: 2 })).toEqual(["MISSING_ARGUMENT", "segment of what", 2]);
    expect(broken({ segment: 2, file: "x" })).toBeNull();
    expect(broken({ segment: 2, json: true, jsonl: true })?.[1]).toBe("one format");
  });

  it("implies: the body sees what a given flag implies, never over a value the user gave", () => {
    const implies = { segment: { archived: true } };
    expect(withImplied({ segment: 2 }, implies)).toEqual({ segment: 2, archived: true });
    expect(withImplied({ segment: 2, archived: false }, implies)).toEqual({ segment: 2, archived: false });
    expect(withImplied({ archived: undefined }, implies)).toEqual({ archived: undefined });
  });

  it("are checked before the body runs, through the boundary, on the flags as given", async () => {
    const h = harness();
    const ran: Array<Record<string, unknown>> = [];
    defineCommand<CommonOptions & { a?: boolean; b?: boolean; c?: boolean }, [string | undefined]>({
      name: "ruled",
      description: "rules",
      arguments: [["[target]", "a target"]],
      options: (cmd) => cmd.option("--a", "a").option("--b", "b").option("--c", "c"),
      rules: [
        { if: ["b"], not: ["target"], message: "--b takes no target" },
        { if: ["c"], not: ["a"], message: "--c conflicts with --a" },
      ],
      implies: { b: { a: true } },
      async run({ flags }) {
        ran.push({ ...flags });
      },
    })(h.program, h.app);
    await h.program.parseAsync(["ruled", "t", "--b", "--json"], { from: "user" });
    expect(ran).toEqual([]);
    expect(h.app.exitCode).toBe(2);
    expect(JSON.parse(h.out())).toMatchObject({ ok: false, error: { code: "CONFLICTING_OPTIONS", message: "--b takes no target" } });
    // --b implies --a for the body, but the rule about --a and --c looks at what was given.
    await h.program.parseAsync(["ruled", "--b", "--c"], { from: "user" });
    expect(ran).toEqual([expect.objectContaining({ a: true, b: true, c: true })]);
  });
});
