// `soev-agents usage` as a user runs it: the real command in a child process, on a SQLite store of tutorial-2
// threads whose scripted models report usage, on two models (one priced, one not) and two days.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistant } from "../../examples/tutorials/02-citations/agent.js";
import { SqliteTraceStore } from "../../src/adapters/stores/sqlite.js";
import { Input } from "../../src/domain/events.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ManualClock } from "../../src/testing/manual-clock.js";

let folder: string;

/** One tutorial-2 turn: a search and an answer, each call reporting `usage`, on `model`. */
function turn(model: string) {
  const usage = { promptTokens: 1000, completionTokens: 100, cachedTokens: 400 };
  return new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { query: "bulky waste pickup" } }], usage, model },
    { content: "Four times a year [1].", usage, model },
  ]);
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "soev-usage-"));
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 12));
  // The file the command opens (storeFromEnvironment's), on a clock that times the calls: two on 2026-12-01,
  // then a day later two more.
  const timed = new SqliteTraceStore(join(folder, "soev-agents.sqlite"), { clock });
  try {
    for (const model of ["gpt-4.1-mini", "town-llama"]) {
      const catalog = new AgentCatalog(timed, { assistant: assistant(turn(model)) });
      const [thread] = await catalog.open(
        "assistant",
        Input({ payload: "How often is bulky waste picked up?", model }),
      );
      await thread.resume();
      clock.advance(24 * 3600 * 1000);
    }
  } finally {
    await timed.close();
  }
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function usage(args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "usage", ...args], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: "", SOEV_DATA_DIR: folder },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("soev-agents usage", () => {
  it("prints the spend by day, agent and model as a table, with the totals and the models it has no price for", () => {
    const run = usage([]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]!.split(/\s+/)).toEqual([
      "day",
      "agent",
      "model",
      "calls",
      "promptTokens",
      "completionTokens",
      "cachedTokens",
      "totalTokens",
      "estimatedCalls",
      "cost",
    ]);
    // gpt-4.1-mini: 2 calls of 600 input at $0.4, 400 cached at $0.1, 100 output at $1.6 per million.
    expect(lines[1]!.split(/\s+/)).toEqual([
      "2026-12-01",
      "assistant",
      "gpt-4.1-mini",
      "2",
      "2000",
      "200",
      "800",
      "2200",
      "0",
      "0.000880",
    ]);
    expect(lines[2]!.split(/\s+/)).toEqual([
      "2026-12-02",
      "assistant",
      "town-llama",
      "2",
      "2000",
      "200",
      "800",
      "2200",
      "0",
    ]);
    expect(lines.slice(4)).toEqual([
      "4400 tokens, $0.0009 at prices 2026-12-01.",
      "No price for: town-llama (give --prices).",
    ]);
  });

  it("gives JSON and CSV, takes a price table and a day range, and says what is wrong with bad arguments", () => {
    const prices = join(folder, "prices.json");
    writeFileSync(prices, JSON.stringify({ version: "ours", models: { "town-llama": { input: 1, output: 2 } } }));
    const json = JSON.parse(usage(["--format", "json", "--prices", prices, "--since", "2026-12-02"]).stdout) as {
      prices: string;
      rows: { model: string; cost: number | null }[];
    };
    expect(json.prices).toBe("ours");
    expect(json.rows.map((row) => [row.model, row.cost])).toEqual([["town-llama", (2000 * 1 + 200 * 2) / 1e6]]);
    const csv = usage(["--format", "csv", "--until", "2026-12-01"]).stdout.trimEnd().split("\n");
    expect(csv).toHaveLength(2);
    expect(csv[1]).toBe("2026-12-01,assistant,gpt-4.1-mini,2,2000,200,800,2200,0,0.000880");
    const bad = usage(["--format", "xml"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--format is table, json or csv, not "xml"');
    expect(usage(["--since", "yesterday"]).stderr).toContain('a day is YYYY-MM-DD, not "yesterday"');
  });
});
