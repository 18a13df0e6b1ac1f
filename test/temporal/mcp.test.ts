// MCP tools on Temporal: each call is an activity like any tool call. A server killed mid-call is started
// again and the call retried, recorded once; a cancelled turn sends the MCP cancellation; bad arguments
// never reach the server; a resource is cited by number and resolves to its URI; the offered tools are
// recorded (ToolsListed), so replay rebuilds the recorded requests after the server changed its tools.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { McpConnections } from "../../src/adapters/mcp/index.js";
import { Failure, ModelOutput, ToolOutput, ToolsListed } from "../../src/domain/events.js";
import { replay } from "../../src/runtime/replay.js";
import { startTurn } from "../../src/temporal/start-turn.js";
import { MCP_SCRIPTS, mcpCatalog, type McpFixture } from "../fixtures/mcp-catalog.js";
import type { ScriptedOutput } from "../../src/testing/index.js";
import { uniqueTaskQueue, type TestClient } from "../support/temporal.js";
import { gateFolder, spawnWorker, useClientAndStore, withWorker, type TestStore } from "./harness.js";

let temporal: TestClient;
let store: TestStore;
useClientAndStore((opened) => ({ temporal, store } = opened));
const opened: McpConnections[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connections) => connections.close()));
});

/** The events of a turn with one MCP call: its tool list recorded before the first model call. */
const ONE_CALL_TURN = ["input", "tools-listed", "model-output", "tool-output", "model-output"];

// Short timeouts, so a retried tool call starts again within seconds.
const SETTINGS = { heartbeatSeconds: 2, controlSeconds: 3 };

/** A fixture server's files in a folder of the test's own. */
function fixtureFiles(variant?: "changed"): McpFixture {
  const folder = gateFolder();
  return { log: join(folder, "server.log"), release: join(folder, "release"), variant };
}

/** What the fixture server saw: its log's lines, each "what pid". */
function seen(fixture: McpFixture): string[] {
  return existsSync(fixture.log) ? readFileSync(fixture.log, "utf8").trim().split("\n") : [];
}

/** Resolve once the fixture server has logged a line starting with `what` (polled: the server is a child). */
async function untilSeen(fixture: McpFixture, what: string): Promise<string> {
  for (;;) {
    const line = seen(fixture).find((each) => each.startsWith(what));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function catalogOf(fixture: McpFixture, script: readonly ScriptedOutput[]) {
  const made = await mcpCatalog(store.store, fixture, script);
  opened.push(made.connections);
  return made.catalog;
}

function start(threadId: string, taskQueue: string, question: string) {
  return startTurn(temporal.client, {
    agent: "assistant",
    threadId,
    input: { payload: question, model: "scripted" },
    taskQueue,
    settings: SETTINGS,
  });
}

it("cites a resource by number, resolving to its URI; replay rebuilds the requests after the tools changed", async () => {
  const script = [...MCP_SCRIPTS.cite, { toolCalls: [{ id: "call-2", name: "add", arguments: { a: 2, b: 3 } }] }, "5."];
  const before = await catalogOf(fixtureFiles(), script);
  const taskQueue = uniqueTaskQueue("mcp-cite");
  const first = await withWorker(before, taskQueue, async () =>
    (await start("mcp-cite", taskQueue, "What does a permit cost?")).result(),
  );
  expect(first.sources).toEqual(["doc://permits/1"]);
  let trace = await before.read("mcp-cite", "assistant");
  expect(trace.byType(ModelOutput)[1]!.markers).toMatchObject([{ cited: [{ written: 1, source: "doc://permits/1" }] }]);
  expect(trace.byType(ToolsListed)).toHaveLength(1);

  // The server now lists other tools: a new description and one more tool.
  const after = await catalogOf(fixtureFiles("changed"), script);
  expect((await replay(after, "mcp-cite")).map((call) => call.matches)).toEqual([true, true]);
  await withWorker(after, taskQueue, async () => (await start("mcp-cite", taskQueue, "And 2 + 3?")).result());
  trace = await after.read("mcp-cite", "assistant");
  const lists = trace.byType(ToolsListed).map((listed) => listed.tools.map((tool) => tool.name).sort());
  expect(lists).toEqual([
    ["add", "cite", "crash", "fail", "link", "pid", "slow"],
    ["add", "cite", "crash", "fail", "link", "pid", "slow", "subtract"],
  ]);
  // The old worker's tools rebuild every call too, the second turn's from its own record.
  for (const catalog of [before, after])
    expect((await replay(catalog, "mcp-cite")).map((call) => call.matches)).toEqual([true, true, true, true]);
});

it("never sends bad arguments to the server: the model reads what was wrong", async () => {
  const fixture = fixtureFiles();
  const catalog = await catalogOf(fixture, MCP_SCRIPTS.badArguments);
  const taskQueue = uniqueTaskQueue("mcp-bad");
  await withWorker(catalog, taskQueue, async () => (await start("mcp-bad", taskQueue, "Add two and 3.")).result());
  const trace = await catalog.read("mcp-bad", "assistant");
  expect(trace.byType(ToolOutput).map((output) => output.error)).toEqual([expect.stringMatching(/\ba\b/)]);
  expect(seen(fixture).filter((line) => line.startsWith("call add"))).toEqual([]);
});

it("starts a server killed mid-call again and retries the call, recorded once", async () => {
  const fixture = fixtureFiles();
  const catalog = await catalogOf(fixture, MCP_SCRIPTS.slow);
  const taskQueue = uniqueTaskQueue("mcp-kill");
  const result = await withWorker(catalog, taskQueue, async () => {
    const turn = await start("mcp-kill", taskQueue, "Wait for it.");
    const [, pid] = (await untilSeen(fixture, "call slow")).split(" slow ");
    process.kill(Number(pid), "SIGKILL");
    writeFileSync(fixture.release!, "");
    return turn.result();
  });
  expect(result.answer).toBe("It was released.");
  const starts = seen(fixture).filter((line) => line.startsWith("call slow"));
  expect(new Set(starts).size).toBe(2);
  const trace = await catalog.read("mcp-kill", "assistant");
  expect(trace.byType(ToolOutput).map((output) => [output.callId, output.text])).toEqual([["call-1", "released"]]);
  expect(trace.events.map((event) => event.type)).toEqual(ONE_CALL_TURN);
});

it("sends the MCP cancellation when the turn is cancelled mid-call", async () => {
  const fixture = fixtureFiles();
  const catalog = await catalogOf(fixture, MCP_SCRIPTS.slow);
  const taskQueue = uniqueTaskQueue("mcp-cancel");
  await withWorker(catalog, taskQueue, async () => {
    const turn = await start("mcp-cancel", taskQueue, "Wait for it.");
    await untilSeen(fixture, "call slow");
    await turn.workflow.cancel();
    await untilSeen(fixture, "cancelled slow");
    await expect(turn.result()).rejects.toThrow();
  });
  const trace = await catalog.read("mcp-cancel", "assistant");
  expect(trace.byType(Failure).map((failure) => failure.error)).toEqual(["CancelledError"]);
  expect(trace.byType(ToolOutput)).toEqual([]);
});

it("resumes a turn whose worker was SIGKILLed during an MCP call, with nothing lost or doubled", async () => {
  const fixture = fixtureFiles();
  const taskQueue = uniqueTaskQueue("mcp-crash");
  const doomed = await spawnWorker({
    taskQueue,
    store: store.spec,
    gate: null,
    env: { SOEV_TEST_MCP: JSON.stringify({ fixture, script: "slow" }) },
  });
  const turn = await start("mcp-crash", taskQueue, "Wait for it.");
  await untilSeen(fixture, "call slow");
  doomed.process.kill("SIGKILL");
  expect(await doomed.exited).toBe("SIGKILL");
  writeFileSync(fixture.release!, "");

  const catalog = await catalogOf(fixture, MCP_SCRIPTS.slow);
  const result = await withWorker(catalog, taskQueue, () => turn.result());
  expect(result).toMatchObject({ answer: "It was released.", modelCalls: 2, toolCalls: 1 });
  const trace = await catalog.read("mcp-crash", "assistant");
  expect(trace.events.map((event) => event.type)).toEqual(ONE_CALL_TURN);
  // The dead worker's server saw the first call; the new worker's server the retry.
  expect(new Set(seen(fixture).filter((line) => line.startsWith("call slow"))).size).toBe(2);
});
