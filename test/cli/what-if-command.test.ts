// `soev-agents whatif` as a user runs it: the real command in a child process, on a SQLite store of
// recorded town threads, with catalog modules of the app's own.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeFromEnvironment } from "../../src/adapters/stores/from-environment.js";
import { Input } from "../../src/domain/index.js";
import { townCatalog } from "../fixtures/what-if/town-catalog.js";

const MODULE = "test/fixtures/what-if/town-catalog.ts";
const CANDIDATE = "test/fixtures/what-if/town-candidate.ts";
let folder: string;
const threads: string[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "soev-whatif-"));
  const store = await storeFromEnvironment({ SOEV_DATA_DIR: folder });
  try {
    for (let count = 0; count < 2; count++) {
      const [thread] = await townCatalog(store).open(
        "assistant",
        Input({ payload: "How often can I have bulky waste picked up?", model: "scripted" }),
      );
      await thread.resume();
      for (const question of ["How much is a parking permit?", "And the dog tax?"])
        await thread.send(Input({ payload: question, model: "scripted" }));
      threads.push(thread.id);
    }
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function whatif(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "whatif", ...args], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: "", SOEV_DATA_DIR: folder, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("soev-agents whatif", () => {
  it("finds every call the same under the recorded catalog", () => {
    const run = whatif([threads[0]!, "--catalog", MODULE, "--candidate", CANDIDATE]);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n")).toEqual([1, 2, 3, 4, 5, 6].map((call) => `call ${call}: same`));
  });

  it("names the system message of a call under a changed prompt, and prints both sides", () => {
    const run = whatif([threads[0]!, "--catalog", MODULE, "--candidate", CANDIDATE, "--call", "2"], {
      SOEV_WHATIF_PROMPT: "Answer briefly from the town documents; cite like [1].",
    });
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^call 2: changed: messages 0; characters (\d+) -> (\d+)$/);
    expect(lines.slice(1, 2)).toEqual(["  message 0:"]);
    expect(lines[2]).toContain("Answer from the town documents");
    expect(lines[3]).toContain("Answer briefly from the town documents");
  });

  it("counts the calls a looser policy would change over the whole store, as JSON", () => {
    const run = whatif(["--all", "--catalog", MODULE, "--candidate", CANDIDATE, "--json"], {
      SOEV_WHATIF_POLICY: "large",
    });
    const summary = JSON.parse(run.stdout) as { threads: number; calls: number; changed: number; changedCalls: object };
    expect(summary).toMatchObject({ threads: 2, calls: 12 });
    expect(summary.changed).toBeGreaterThan(0);
    expect(Object.keys(summary.changedCalls).sort()).toEqual([...threads].sort());
  });

  it("says what is wrong with bad arguments, with exit code 2", () => {
    const noCandidate = whatif([threads[0]!, "--catalog", MODULE]);
    expect(noCandidate.status).toBe(2);
    expect(noCandidate.stderr).toContain("give --catalog and --candidate");
    const badCall = whatif([threads[0]!, "--catalog", MODULE, "--candidate", MODULE, "--call", "9"]);
    expect(badCall.status).toBe(2);
    expect(badCall.stderr).toContain(`thread "${threads[0]}" has no model call 9.`);
    const notModule = whatif([threads[0]!, "--catalog", "package.json", "--candidate", MODULE]);
    expect(notModule.status).toBe(2);
    expect(notModule.stderr).toContain("exports no function");
  });
});
