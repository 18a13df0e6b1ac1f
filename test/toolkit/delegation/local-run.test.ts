import { describe, expect, it } from "vitest";
import { Failure, ModelOutput, TaskInput, ToolOutput, type Input } from "../../../src/domain/events.js";
import type { Trace } from "../../../src/domain/trace.js";
import type { ChatRequest } from "../../../src/ports/request.js";
import { accepted, replay, runTurn } from "../../../src/runtime/index.js";
import { handBack, handOff, readTrace, runWork } from "../../../src/internal/index.js";
import { Text } from "../../../src/toolkit/index.js";
import { FunctionModel, ScriptedModel } from "../../../src/testing/index.js";
import { assistant, openThread, research } from "../../fixtures/delegation.js";

const QUESTION = "How often can I have bulky waste picked up?";
const BULKY = "waste-collection#2";

const parentScript = () =>
  new ScriptedModel([
    { toolCalls: [{ id: "p1", name: "research", arguments: { question: "bulky waste pickup" } }] },
    "Four times a year, for free [2].",
  ]);
const SEARCH = { toolCalls: [{ id: "r1", name: "search", arguments: { query: "bulky waste pickup" } }] };
const FOUND = "Bulky waste is picked up for free four times a year [2].";

const types = (trace: Trace, stream: string) => trace.stream(stream).events.map((event) => event.type);
const handBacks = (trace: Trace) =>
  trace
    .stream("main")
    .byType(ToolOutput)
    .filter((output) => output.callId === "p1");

describe("a delegation on the local runner", () => {
  it("runs the task on its own stream, hands back one result, and the parent cites the passage the task found", async () => {
    const parent = parentScript();
    const child = new ScriptedModel([SEARCH, FOUND]);
    const { thread } = await openThread(parent, child, QUESTION);
    const trace = await thread.resume();

    expect(types(trace, "main")).toEqual(["input", "model-output", "tool-output", "model-output"]);
    expect(types(trace, "task-p1")).toEqual(["task-input", "model-output", "tool-output", "model-output"]);
    const [task] = trace.byType(TaskInput);
    expect(task).toMatchObject({
      callId: "p1",
      payload: { question: "bulky waste pickup" },
      model: "scripted",
      stream: "task-p1",
      seq: 0,
    });
    expect(child.requests[0]!.messages.at(-1)).toMatchObject({ role: "user", content: "bulky waste pickup" });

    const [result] = handBacks(trace);
    expect(result).toMatchObject({ stream: "main", origin: "tools", error: null, text: FOUND });
    expect(result!.elements.map((element) => element.id)).toEqual(["waste-collection", BULKY, "waste-collection#0"]);
    const shown = parent.requests[1]!.messages.at(-1)!;
    expect(shown).toMatchObject({ role: "tool", toolCallId: "p1" });
    expect(shown.content).toContain(
      `${FOUND}\n\n<document id="1" title="Waste collection">\n<passage id="2" cite="[2]">Bulky waste`,
    );

    const answer = trace.stream("main").byType(ModelOutput).at(-1)!;
    expect(answer.content).toBe("Four times a year, for free.");
    expect(answer.markers[0]!.cited).toEqual([{ written: 2, source: BULKY }]);
  });

  it("replays every model call of the thread, the task's included, to the request hashes its outputs recorded", async () => {
    const { thread } = await openThread(parentScript(), new ScriptedModel([SEARCH, FOUND]), QUESTION);
    const trace = await thread.resume();
    const agent = assistant(parentScript(), research(new ScriptedModel([])));
    const calls = await replay(trace.events, (input) => agent.build(undefined, accepted(Text, input)[1], input.model));
    expect(calls.map((call) => call.output.stream)).toEqual(["main", "task-p1", "task-p1", "main"]);
    expect(calls.map((call) => call.request?.hash)).toEqual(
      trace.byType(ModelOutput).map((output) => output.requestHash),
    );
    expect(calls.every((call) => call.matches)).toBe(true);
  });

  it("runs two calls as two tasks on two streams, each result linked to its call", async () => {
    const parent = new ScriptedModel([
      {
        toolCalls: [
          { id: "p1", name: "research", arguments: { question: "bulky waste pickup" } },
          { id: "p2", name: "research", arguments: { question: "parking permit" } },
        ],
      },
      "Done.",
    ]);
    // Each task searches its question, then answers with the first passage its search showed.
    const child = new FunctionModel((request: ChatRequest) => {
      const last = request.messages.at(-1)!;
      if (last.role === "user")
        return {
          toolCalls: [
            {
              id: `search-${String(last.content).split(" ")[0]}`,
              name: "search",
              arguments: { query: String(last.content) },
            },
          ],
        };
      const first = /<passage id="(\d+)"/.exec(String(last.content))![1];
      return `Found it [${first}].`;
    });
    const { thread } = await openThread(parent, child, QUESTION);
    const trace = await thread.resume();
    const results = trace.stream("main").byType(ToolOutput);
    expect(results.map((output) => output.callId).sort()).toEqual(["p1", "p2"]);
    expect(
      trace
        .byType(TaskInput)
        .map((task) => [task.callId, task.stream])
        .sort(),
    ).toEqual([
      ["p1", "task-p1"],
      ["p2", "task-p2"],
    ]);
    for (const output of results) {
      const cited = trace.stream(`task-${output.callId}`).byType(ModelOutput).at(-1)!.markers[0]!.cited[0]!.written;
      expect(output.text).toBe(`Found it [${cited}].`);
    }
  });

  it("gives a call whose arguments do not fit an error result and starts no task", async () => {
    const parent = new ScriptedModel([
      { toolCalls: [{ id: "p1", name: "research", arguments: { topic: "waste" } }] },
      "I could not ask.",
    ]);
    const { thread } = await openThread(parent, new ScriptedModel([]), QUESTION);
    const trace = await thread.resume();
    expect(trace.byType(TaskInput)).toEqual([]);
    expect(handBacks(trace)[0]!.error).toMatch(/^The arguments of research do not fit its schema/);
  });

  it("resumes the task after a failure inside it, and records no second TaskInput or hand-back", async () => {
    const parent = parentScript();
    const child = new ScriptedModel([SEARCH, new Error("The researcher's model went away."), FOUND]);
    const openings: unknown[] = [];
    const observer = {
      run: <T>(_thread: string, _agent: string, opening: Input | null, run: () => Promise<T>) => (
        openings.push(opening?.payload),
        run()
      ),
    };
    const { thread } = await openThread(parent, child, QUESTION, observer);
    await expect(thread.resume()).rejects.toThrow("The researcher's model went away.");
    const failed = await thread.trace();
    expect(types(failed, "task-p1")).toEqual(["task-input", "model-output", "tool-output", "failure"]);
    expect(failed.stream("main").byType(Failure)).toMatchObject([
      { callId: "p1", message: "The researcher's model went away." },
    ]);
    expect(handBacks(failed)).toEqual([]);

    const trace = await thread.resume();
    expect(types(trace, "task-p1")).toEqual(["task-input", "model-output", "tool-output", "failure", "model-output"]);
    expect(trace.byType(TaskInput)).toHaveLength(1);
    expect(handBacks(trace)).toHaveLength(1);
    expect(handBacks(trace)[0]!.text).toBe(FOUND);
    expect(child.requests).toHaveLength(3);
    expect(openings).toEqual([QUESTION, QUESTION]);
    expect(trace.stream("main").byType(ModelOutput).at(-1)!.markers[0]!.cited).toEqual([{ written: 2, source: BULKY }]);
  });

  it("runs a task in parts, as the Temporal runner does: hand-off, the task stream's own graph from the catalog, hand-back, each once", async () => {
    const parent = parentScript();
    const child = new ScriptedModel([SEARCH, FOUND]);
    const { thread, catalog } = await openThread(parent, child, QUESTION);
    const recorder = { store: catalog.store, types: catalog.types("assistant"), threadId: thread.id, version: "test" };
    const read = () => readTrace(recorder.store, recorder.types, recorder.threadId);
    const graph = await catalog.graphFor(thread.id, "assistant", await read());
    const base = { threadId: thread.id, agent: "assistant", stream: "main" };
    const model = graph.step("model");
    const [call] = model.plan({ ...base, node: "model", trace: await read() });
    await runWork(recorder, model, { ...base, node: "model" }, call!);
    const tools = graph.step("tools");
    expect(tools.plan({ ...base, node: "tools", trace: await read() })).toMatchObject([
      { key: "p1", kind: "task", name: "research" },
    ]);

    const context = { ...base, node: "tools" };
    const first = await handOff(recorder, tools, context, "p1");
    const again = await handOff(recorder, tools, context, "p1");
    expect([first.skipped, again.skipped]).toEqual([false, true]);
    expect(again.task).toEqual(first.task);

    const taskGraph = await catalog.graphFor(thread.id, "assistant", await read(), first.task.stream);
    await runTurn(recorder, taskGraph, { stream: first.task.stream });
    const backs = [await handBack(recorder, tools, context, "p1"), await handBack(recorder, tools, context, "p1")];
    expect(backs.map((back) => back.skipped)).toEqual([false, true]);
    expect(backs[0]!.recorded).toMatchObject([{ type: "tool-output", callId: "p1", text: FOUND, stream: "main" }]);

    const trace = await thread.resume();
    expect(trace.byType(TaskInput)).toHaveLength(1);
    expect(handBacks(trace)).toHaveLength(1);
    expect(trace.stream("main").byType(ModelOutput).at(-1)!.content).toBe("Four times a year, for free.");
  });
});
