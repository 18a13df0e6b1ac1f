// Properties of the context policy over generated conversations and results (fast-check).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ModelOutput, ToolOutput } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { LlmStep } from "../../../src/runtime/steps/llm-step.js";
import { FunctionModel, ScriptedModel } from "../../../src/testing/index.js";
import type { ScriptedOutput } from "../../../src/testing/scripted-output.js";
import { InMemoryTraceStore } from "../../../src/adapters/index.js";
import { Compaction, Input, Reopened } from "../../../src/domain/events.js";
import { AgentCatalog, accepted, replay } from "../../../src/runtime/index.js";
import {
  BRACKETS as CITE,
  COMPACT_INSTRUCTIONS,
  Compact,
  ContextFullError,
  ContextPolicy,
  MessageBuilder,
  ModelLimits,
  ReActAgent,
  ReActConfig,
  ShortenError,
  Text,
  Tokens,
  asRecorded,
  cap,
  dropText,
  firstWords,
  jsonCap,
  sources,
  turns,
  type Shorten,
} from "../../../src/toolkit/index.js";
import { LIBRARY } from "../../../examples/tutorials/01-first-agent/library.js";
import { Document, Passage, readDocument, search } from "../../../examples/tutorials/02-citations/tools.js";
import { shortened } from "../../../src/toolkit/context/forms.js";
import { conversationOf, conversationPlans, policies, toolOutputs } from "../../fixtures/context-arbitraries.js";
import { conversationBuilder } from "../../fixtures/context-conversation.js";

const LIMITS = new ModelLimits({ window: new Tokens(100_000) });

/** The trace before each model call of the running turn, and the trace of the next call. */
function callsOfRunningTurn(trace: Trace): Trace[] {
  const events = trace.events;
  const from = events.findLastIndex((event) => event.type === "input");
  return [
    ...events.flatMap((event, index) => (index > from && ModelOutput.is(event) ? [trace.before(index)] : [])),
    trace,
  ];
}

describe("forms within a turn", () => {
  it("never rise between the calls of a turn, and a result in the same form is sent the same at each call", () => {
    fc.assert(
      fc.property(conversationPlans, policies, (plan, policy) => {
        const made = conversationBuilder(policy);
        const calls = callsOfRunningTurn(conversationOf(plan).trace());
        const seen = calls.map((view) => ({
          forms: new Map(made.explain(view).map((record) => [record.result, record.form as number])),
          contents: new Map(
            made
              .build(view)
              .request.messages.flatMap((message) =>
                message.role === "tool" ? [[message.toolCallId, message.content]] : [],
              ),
          ),
        }));
        for (let index = 1; index < seen.length; index += 1) {
          const [before, after] = [seen[index - 1]!, seen[index]!];
          for (const [callId, content] of before.contents) {
            const handle = `r${Number(callId.slice(1))}`;
            const [was, is] = [before.forms.get(handle) ?? 2, after.forms.get(handle) ?? 2];
            expect(is).toBeLessThanOrEqual(was);
            if (is === was) expect(after.contents.get(callId)).toBe(content);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("Shorten", () => {
  const builtIns: [string, Shorten][] = [
    ["asRecorded", asRecorded],
    ["dropText", dropText],
    ["sources(cap)", sources(cap(new Tokens(7)))],
    ["sources(firstWords)", sources(firstWords(3))],
    ["jsonCap", jsonCap(new Tokens(5))],
  ];

  it("never loses, adds or reorders an element, nor changes the error", () => {
    fc.assert(
      fc.property(toolOutputs, fc.constantFrom(...builtIns), (output, [, shorten]) => {
        const made = shortened(shorten, output, LIMITS, "search");
        expect(made.elements.map((element) => element.id)).toEqual(output.elements.map((element) => element.id));
        expect(made.error).toBe(output.error);
      }),
      { numRuns: 300 },
    );
  });

  it("is refused when it drops or reorders an element", () => {
    fc.assert(
      fc.property(
        toolOutputs.filter((output) => output.elements.length > 1),
        fc.boolean(),
        (output, drops) => {
          const broken: Shorten = (result) => ({
            ...result,
            elements: drops ? result.elements.slice(1) : [...result.elements].reverse(),
          });
          expect(() => shortened(broken, output, LIMITS, "search")).toThrow(ShortenError);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("a context that does not fit", () => {
  it("raises ContextFullError before any model call exactly when the prompt plus outputReserve is over the window", async () => {
    await fc.assert(
      fc.asyncProperty(
        conversationPlans,
        fc.integer({ min: 300, max: 6_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        async (plan, window, reserve) => {
          const limits = new ModelLimits({ window: new Tokens(window) });
          const made = conversationBuilder({ outputReserve: new Tokens(reserve), shrink: [] }, limits);
          const trace = conversationOf(plan).trace();
          const { request } = made.assess(trace).context;
          const over = Math.ceil(request.characters / limits.charactersPerToken) + reserve > window;
          const model = new ScriptedModel(["Done."]);
          const step = new LlmStep({ builder: made, model });
          const context = { threadId: "t", agent: null, stream: "main", node: "model", trace };
          const run = step.run(context, String(trace.length));
          if (over) {
            await expect(run).rejects.toThrow(ContextFullError);
            expect(model.requests).toHaveLength(0);
          } else {
            await expect(run).resolves.toHaveLength(1);
            expect(model.requests).toHaveLength(1);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});

describe("results that a generated conversation records", () => {
  it("keep the trace whole: only requests change", () => {
    fc.assert(
      fc.property(conversationPlans, policies, (plan, policy) => {
        const trace = conversationOf(plan).trace();
        const before = JSON.stringify(trace.events);
        conversationBuilder(policy).build(trace);
        expect(JSON.stringify(trace.events)).toBe(before);
        expect(trace.byType(ToolOutput).length).toBeGreaterThan(0);
      }),
      { numRuns: 50 },
    );
  });
});

/** One model action of a generated turn: a tool call, or the cited answer that ends the turn. */
type Action = { search: string } | { reopen: number } | { read: number };

const actions: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    search: fc.constantFrom("bulky waste", "parking permit", "dog tax", "paper", "residual waste", "permit website"),
  }),
  fc.record({ reopen: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ read: fc.integer({ min: 1, max: 14 }) }),
);

const scripts = fc.array(
  fc.record({
    actions: fc.array(actions, { maxLength: 3 }),
    cites: fc.array(fc.integer({ min: 1, max: 14 }), { maxLength: 2 }),
  }),
  {
    minLength: 1,
    maxLength: 4,
  },
);

describe("replay", () => {
  it("rebuilds every request of a conversation to the hash that its output recorded, with shrinks, reopen and compaction", async () => {
    const seen = { compactions: 0, reopened: 0 };
    await fc.assert(
      fc.asyncProperty(scripts, policies, fc.boolean(), async (script, policy, compacts) => {
        const outputs: ScriptedOutput[] = script.flatMap((turn) => [
          ...turn.actions.map((action): ScriptedOutput => ({
            toolCalls: [
              "search" in action
                ? { name: "search", arguments: { query: action.search } }
                : "reopen" in action
                  ? { name: "reopen", arguments: { elements: [String(action.reopen)] } }
                  : { name: "read_document", arguments: { document: String(action.read) } },
            ],
          })),
          `Answer ${turn.cites.map((number) => `[${number}]`).join("")}.`,
        ]);
        const model = new FunctionModel((request) => {
          const last = request.messages.at(-1);
          if (
            request.tools.length === 0 &&
            last?.role === "user" &&
            String(last.content).startsWith(COMPACT_INSTRUCTIONS)
          )
            return "Summary of the earlier turns [2].";
          const output = outputs.shift() ?? "Done.";
          return typeof output === "string"
            ? { content: output, usage: { promptTokens: Math.ceil(request.characters / 4), completionTokens: 3 } }
            : output;
        });
        const compact = compacts ? { compact: new Compact({ when: new Tokens(400), where: turns.slice(0, -1) }) } : {};
        const config = new ReActConfig({
          model,
          prompt: "Answer from the town documents; cite like [1].",
          tools: [search.bind({ library: LIBRARY }), readDocument.bind({ library: LIBRARY })],
          citations: CITE,
          context: new MessageBuilder({ policy: new ContextPolicy({ ...policy, ...compact }) }),
        });
        const agent = new ReActAgent(config, { elementTypes: [Document, Passage] });
        const agents = new AgentCatalog(new InMemoryTraceStore(), { assistant: agent }, { version: "test" });
        const [opened] = await agents.open("assistant", Input({ payload: "Question 1", model: "function" }));
        let trace = await opened.resume();
        for (let turn = 2; turn <= script.length; turn += 1) {
          const input = Input({ payload: `Question ${turn}`, model: "function" });
          trace = await (await agents.thread(opened.id, { input })).send(input);
        }
        const calls = await replay(trace.events, (input) =>
          agent.build(undefined, accepted(Text, input)[1], input.model),
        );
        expect(calls).toHaveLength(trace.byType(ModelOutput).length);
        expect(calls.map((call) => call.request?.hash)).toEqual(
          trace.byType(ModelOutput).map((output) => output.requestHash),
        );
        expect(calls.every((call) => call.matches)).toBe(true);
        seen.compactions += trace.byType(Compaction).length;
        seen.reopened += trace.byType(Reopened).length;
      }),
      { numRuns: 60 },
    );
    // The runs cover what the property is about: summaries and reopened elements.
    expect(seen.compactions).toBeGreaterThan(0);
    expect(seen.reopened).toBeGreaterThan(0);
  });
});
