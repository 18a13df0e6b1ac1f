/**
 * Benchmark: the time to build one request from traces of 100, 1,000 and 10,000 events, without
 * shrinking (no limits) and with shrinking (a policy whose thresholds the trace is far over, so every
 * call of the running turn compresses and stubs). Not a test: run `npm run bench`, and put the figures
 * in bench/README.md.
 */
import { performance } from "node:perf_hooks";
import { Input, ModelOutput, ToolOutput, Trace, type Event } from "../src/domain/index.js";
import { ToolDef } from "../src/ports/index.js";
import { BRACKETS } from "../src/runtime/index.js";
import { ContextPolicy, MessageBuilder, ModelLimits, Text, Tokens, renderedBy } from "../src/toolkit/index.js";
import { Document, Passage } from "../examples/tutorials/02-citations/tools.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } } },
});

/** A thread of `count` events: turns of a question, a search with a document of three passages, and a cited answer; the running turn has two searches. */
function traceOf(count: number): Trace {
  const events: Event[] = [];
  let calls = 0;
  const search = () => {
    const id = `call-${++calls}`;
    const document = `doc-${calls}`;
    const passages = [0, 1, 2].map((index) =>
      Passage({
        id: `${document}#${index}`,
        ref: document,
        text: `Passage ${index} of document ${calls}: ${"words of the town document ".repeat(12)}`,
      }),
    );
    events.push(
      ModelOutput({ toolCalls: [{ id, name: "search", arguments: { query: `question ${calls}` } }], model: "bench" }),
    );
    events.push(
      ToolOutput({ callId: id, elements: [Document({ id: document, title: `Document ${calls}` }), ...passages] }),
    );
    return passages[0]!.id;
  };
  while (events.length < count - 5) {
    events.push(Input({ payload: `Question ${events.length}?`, model: "bench" }));
    const cited = search();
    events.push(
      ModelOutput({
        content: "The answer.",
        markers: [{ at: 11, text: " [1]", cited: [{ written: 1, source: cited }] }],
        model: "bench",
      }),
    );
  }
  events.push(Input({ payload: "The last question?", model: "bench" }));
  search();
  search();
  return Trace.of(events);
}

function builder(limits: ModelLimits | null, policy: ContextPolicy): MessageBuilder {
  return new MessageBuilder({
    policy,
    renderInput: renderedBy(Text),
    model: "bench",
    prompt: () => "Answer, citing like [1].",
    tools: [SEARCH],
    citations: BRACKETS,
    limits,
  });
}

const WITHOUT = builder(null, new ContextPolicy());
// A window the thread fits in, and thresholds it is far over: each call of the running turn shrinks.
const WITH = builder(
  new ModelLimits({ window: new Tokens(10_000_000) }),
  new ContextPolicy({ startAt: new Tokens(2_000), target: new Tokens(1_000), minGain: null }),
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(made: MessageBuilder, trace: Trace, runs: number): { ms: number; characters: number } {
  let characters = made.build(trace).request.characters;
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    characters = made.build(trace).request.characters;
    times.push(performance.now() - start);
  }
  return { ms: median(times), characters };
}

console.log("| events | shrinking | median ms per build | request characters |");
console.log("| ---: | --- | ---: | ---: |");
for (const count of [100, 1_000, 10_000]) {
  const trace = traceOf(count);
  const runs = count >= 10_000 ? 5 : 20;
  for (const [label, made] of [
    ["no", WITHOUT],
    ["yes", WITH],
  ] as const) {
    const { ms, characters } = measure(made, trace, runs);
    console.log(
      `| ${trace.length.toLocaleString("en")} | ${label} | ${ms.toFixed(1)} | ${characters.toLocaleString("en")} |`,
    );
  }
}
