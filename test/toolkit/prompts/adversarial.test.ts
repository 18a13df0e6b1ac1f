/**
 * The adversarial corpus (test/fixtures/prompts/adversarial): every template escape the security reviews
 * tried, and what reading the engine's grammar suggests, each loaded and rendered three ways: by the real
 * `soev-prompts` CLI, through a ReAct turn on the local runner, and by the interpreter directly with the
 * load check skipped. A payload that ran would write the canary file (with a secret of the environment);
 * none may, none may print the secret, and each ends as its header says (`# expect:`).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { BRACKETS } from "../../../src/runtime/citations.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { renderTree } from "../../../src/toolkit/prompts/jinja-interpreter.js";
import { parseJinja } from "../../../src/toolkit/prompts/jinja-syntax.js";
import { PromptFile, PromptFileError, ReActAgent, ReActConfig } from "../../../src/toolkit/index.js";
import { runTurn } from "../../fixtures/react-turn.js";

const CORPUS = "test/fixtures/prompts/adversarial";
const SECRET = "s3cr3t-canary-7f1e";
const files = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".yaml"))
  .sort();

type Expect = "refused" | "rendered" | "rendered-error";
const expectOf = (file: string): Expect => {
  const found = /^# expect: (refused|rendered|rendered-error)$/m.exec(readFileSync(join(CORPUS, file), "utf8"));
  if (found === null) throw new Error(`${file} has no "# expect:" line`);
  return found[1] as Expect;
};

const folder = mkdtempSync(join(tmpdir(), "soev-canary-"));
const canary = join(folder, "canary");

beforeAll(() => {
  process.env.SOEV_CANARY_FILE = canary;
  process.env.SOEV_CANARY_SECRET = SECRET;
});
afterEach(() => {
  // A payload that ran fails its own test, not the next one.
  const ran = existsSync(canary);
  rmSync(canary, { force: true });
  expect(ran, "the payload ran: the canary file was written").toBe(false);
});
afterAll(() => {
  delete process.env.SOEV_CANARY_FILE;
  delete process.env.SOEV_CANARY_SECRET;
  rmSync(folder, { recursive: true, force: true });
});

/** The CLI's run on one template, each in a process of its own with a canary file of its own. */
interface CliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ran: boolean;
}

function runCli(file: string): Promise<CliRun> {
  const own = join(folder, `canary-${file}`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/toolkit/prompts/cli.ts", join(CORPUS, file)],
      { encoding: "utf8", env: { ...process.env, SOEV_CANARY_FILE: own, SOEV_CANARY_SECRET: SECRET }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const ran = existsSync(own);
        const status = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ status, signal: (error?.signal as NodeJS.Signals | undefined) ?? null, stdout, stderr, ran });
      },
    );
  });
}

/** The CLI runs start together, a few at a time: each pays the TypeScript loader's start-up, not one after another. */
function startCliRuns(): Map<string, Promise<CliRun>> {
  const runs = new Map<string, Promise<CliRun>>();
  const previous: Promise<unknown>[] = [];
  for (const [index, file] of files.entries()) {
    const slot = previous[index % 4] ?? Promise.resolve();
    const run = slot.then(() => runCli(file));
    previous[index % 4] = run;
    runs.set(file, run);
  }
  return runs;
}

describe("the adversarial corpus", () => {
  const cliRuns = startCliRuns();

  it("holds at least 40 templates, each saying how it ends", () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    for (const file of files) expect(["refused", "rendered", "rendered-error"]).toContain(expectOf(file));
  });

  it.each(files)("soev-prompts %s: runs no code and ends as expected", async (file) => {
    const result = await cliRuns.get(file)!;
    expect(result.signal, "the CLI was killed: it ran too long").toBeNull();
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    const expected = expectOf(file);
    expect(result.status, result.stderr).toBe(expected === "rendered" ? 0 : 2);
    if (expected === "refused") expect(result.stderr).not.toContain("failed to render");
    if (expected === "rendered-error") expect(result.stderr).toContain("failed to render");
    expect(result.ran, "the payload ran: the CLI wrote the canary file").toBe(false);
  });

  it.each(files)("a ReAct turn with %s: runs no code and ends as expected", async (file) => {
    const expected = expectOf(file);
    const loading = PromptFile.load(join(CORPUS, file));
    if (expected === "refused") {
      await expect(loading).rejects.toThrow(PromptFileError);
      return;
    }
    const prompt = await loading;
    const model = new ScriptedModel(["Hello."]);
    const turn = runTurn(new ReActAgent(new ReActConfig({ model, prompt, citations: BRACKETS })), "Hi");
    if (expected === "rendered-error") {
      await expect(turn).rejects.toThrow(/the system template failed to render/);
      return;
    }
    await turn;
    const system = String(model.requests[0]!.messages[0]!.content);
    expect(system).not.toContain(SECRET);
  });

  it.each(files)("the interpreter, without the load check, renders %s without running code", (file) => {
    const document = parseYaml(readFileSync(join(CORPUS, file), "utf8")) as { system: string };
    let tree;
    try {
      tree = parseJinja(document.system);
    } catch {
      return; // the parser refuses it: nothing to render
    }
    let output = "";
    try {
      output = renderTree({ tree, templates: new Map([["base", tree]]), variables: { citation: "[1]" } });
    } catch (error) {
      expect((error as Error).name).toMatch(/^Template(Sandbox|Render)Error$/);
    }
    expect(output).not.toContain(SECRET);
  });
});
