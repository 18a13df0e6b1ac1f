/**
 * Benchmark: the time to build one request from traces of 1,000, 10,000 and 50,000 events, without
 * shrinking (no limits) and with shrinking (a policy whose thresholds the trace is far over, so every
 * call of the running turn compresses and stubs): cold (a new builder) and warm (the same builder, after
 * one more event is appended). Not a test: run `npm run bench`; it writes its section of bench/README.md.
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { markdownTable, writeSection } from "./report.js";
import { caughtUp, pauses, within, type Span } from "./shared/pauses.js";
import {
  EventTypes,
  Input,
  ModelOutput,
  ToolOutput,
  Trace,
  type Event,
  type StoredEvent,
} from "../src/domain/index.js";
import { ToolDef } from "../src/ports/index.js";
import { BRACKETS } from "../src/runtime/index.js";
import { ContextPolicy, MessageBuilder, ModelLimits, Text, Tokens, renderedBy } from "../src/toolkit/index.js";
import { Document, Passage } from "../examples/tutorials/02-citations/tools.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } } },
});

const REGISTRY = new EventTypes({ elements: [Document, Passage] });

/**
 * The events of a thread of `count` events and one more: turns of a question, a search with a document of
 * three passages, and a cited answer; the running turn has two searches, the last result the one more event.
 * Each is as a worker holds it: checked, stored as JSON and decoded again, as a store's read gives it (its
 * texts one flat string each, not the pieces a template made).
 */
function eventsOf(count: number): Event[] {
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
  while (events.length < count - 4) {
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
  return events.map((event) => REGISTRY.decode(JSON.parse(JSON.stringify(REGISTRY.check(event))) as StoredEvent));
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

const WITHOUT = () => builder(null, new ContextPolicy());
// A window the thread fits in, and thresholds it is far over: each call of the running turn shrinks.
const WITH = () =>
  builder(
    new ModelLimits({ window: new Tokens(10_000_000) }),
    new ContextPolicy({ startAt: new Tokens(2_000), target: new Tokens(1_000), minGain: null }),
  );

/** Run the collector, when the process was started with --expose-gc (as `npm run bench` starts each script). */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Wait, without running JavaScript, for the background work of the collection just run: V8 sweeps the heap on
 * other threads after a full collection, and the process's CPU time would count that sweeping in the build.
 */
function settle(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** One build's times in ms and the memory pages it touched first; `cpu` counts system time too. */
interface Timing {
  wall: number;
  cpu: number;
  /** The kernel's part of `cpu`: in this VM, mostly faulting in the pages the heap grows into. */
  system: number;
  /** Minor page faults: pages the process touched for the first time (or again, after they were given back). */
  faults: number;
  /** When it started and ended, to count the collector's pauses within it. */
  span: Span;
}

/** The ms of the collector's pauses that started within `span`. */
function pausedWithin(span: Span): number {
  return pauses.filter(({ at }) => within(at, [span])).reduce((sum, { ms }) => sum + ms, 0);
}

/** One build's times: the machine is shared, so the CPU time shows the work apart from waiting. */
function timed(build: () => void): Timing {
  const before = process.resourceUsage();
  const start = performance.now();
  build();
  const end = performance.now();
  const wall = end - start;
  const after = process.resourceUsage();
  const system = (after.systemCPUTime - before.systemCPUTime) / 1000;
  return {
    wall,
    cpu: (after.userCPUTime - before.userCPUTime) / 1000 + system,
    system,
    faults: after.minorPageFault - before.minorPageFault,
    span: [start, end],
  };
}

interface Figures {
  cold: Timing[];
  warm: Timing[];
  characters: number;
  /** The MB a builder holds after its cold build, or null without --expose-gc. */
  kept: number | null;
}

/**
 * What a new builder keeps after building `trace` cold, by the heap in use after a collection: what the
 * collector copies while a cold build runs, and what a worker holds for each thread it keeps.
 */
function keptBy(make: () => MessageBuilder, trace: Trace): number | null {
  if ((globalThis as { gc?: unknown }).gc === undefined) return null;
  // The median of three: a collection may also free what the process held before (code, other caches).
  const kept = [0, 1, 2].map(() => keptOnce(make, trace));
  return Number((median(kept) / 1e6).toFixed(1));
}

// In a call of its own, so that the builder is gone once it returns (a loop's frame would hold the last one).
function keptOnce(make: () => MessageBuilder, trace: Trace): number {
  // Twice: what a weak map held for a builder measured before goes only once its key has been collected.
  collect();
  collect();
  const heap = process.memoryUsage().heapUsed;
  const made = make();
  made.build(trace);
  collect();
  collect();
  const kept = process.memoryUsage().heapUsed - heap;
  // The builder is used after the heap is read, so the collection cannot take it before (a warm build: no cost).
  made.build(trace);
  return kept;
}

/** Cold: a new builder builds the trace of `count` events; warm: the same builder, with the one more event appended. */
function measure(make: () => MessageBuilder, events: readonly Event[], runs: number): Figures {
  const before = Trace.of(events.slice(0, -1));
  // The trace grown by the one more event, as a worker tops up the trace it keeps.
  const after = before.with([{ position: events.length, event: events.at(-1)! }]);
  const figures: Figures = { cold: [], warm: [], characters: 0, kept: keptBy(make, before) };
  // As many untimed runs first: V8 optimizes what a build runs over its first runs at a size (compiling on other
  // threads, which the CPU time would count), and a worker's code has been running long before a thread's cold build.
  for (let run = 0; run < runs; run += 1) make().build(before);
  for (let run = 0; run < runs; run += 1) {
    // The garbage of the builders measured before is collected first (outside the time): a worker's cold build
    // of a thread does not follow six others.
    collect();
    settle();
    const made = make();
    figures.cold.push(timed(() => made.build(before)));
    figures.warm.push(timed(() => (figures.characters = made.build(after).request.characters)));
  }
  return figures;
}

const ms = (values: number[]) => Number(median(values).toFixed(1));

const SIZES = [1_000, 10_000, 50_000];
// 15 at 10,000 events (7 before): the medians of 7 moved by 15 to 25 ms between runs of the same code.
const RUNS = [15, 15, 5];

/**
 * Cold builds with shrinking of a trace that no builder read before, each of events decoded anew: what a worker
 * pays for its first read of a thread (the trace's indexes included), whatever an earlier builder keeps.
 */
function measureFresh(count: number, runs: number): Timing[] {
  const fresh = () => Trace.of(eventsOf(count).slice(0, -1));
  for (let run = 0; run < runs; run += 1) WITH().build(fresh());
  const cold: Timing[] = [];
  for (let run = 0; run < runs; run += 1) {
    const trace = fresh();
    collect();
    settle();
    cold.push(timed(() => WITH().build(trace)));
  }
  return cold;
}

// A child run, to compare two revisions of the code alternately, each in processes of its own
// (scripts/compare-context-build.sh): only the cold builds with shrinking of BENCH_CHILD_COUNT events, of the
// bench's trace or, with BENCH_CHILD_FRESH=1, of a new trace each; the medians of their wall and CPU ms on stdout.
if (process.env.BENCH_CHILD_COUNT !== undefined) {
  const count = Number(process.env.BENCH_CHILD_COUNT);
  const runs = RUNS[SIZES.indexOf(count)] ?? 15;
  const cold =
    process.env.BENCH_CHILD_FRESH === "1" ? measureFresh(count, runs) : measure(WITH, eventsOf(count), runs).cold;
  await caughtUp();
  const figures = {
    wall: ms(cold.map((time) => time.wall)),
    cpu: ms(cold.map((time) => time.cpu)),
    gc: ms(cold.map((time) => pausedWithin(time.span))),
  };
  console.log(JSON.stringify(figures));
  process.exit(0);
}

const HEADER = [
  "events",
  "shrinking",
  "cold ms",
  "cold CPU ms",
  "of it GC",
  "warm ms",
  "warm CPU ms",
  "request characters",
  "kept MB",
];
const rows: (string | number)[][] = [HEADER];
const colds: Timing[][] = [];
// Builders of a small thread first compile the code a build runs: the first size's kept MB would count it.
for (const make of [WITHOUT, WITH]) make().build(Trace.of(eventsOf(200)));
SIZES.forEach((count, index) => {
  const events = eventsOf(count);
  for (const [label, make] of [
    ["no", WITHOUT],
    ["yes", WITH],
  ] as const) {
    const { cold, warm, characters, kept } = measure(make, events, RUNS[index]!);
    const wall = (timings: Timing[]) => ms(timings.map((time) => time.wall));
    const cpu = (timings: Timing[]) => ms(timings.map((time) => time.cpu));
    // "of it GC" is filled in below, once the observer has heard of the pauses.
    rows.push([count, label, wall(cold), cpu(cold), "", wall(warm), cpu(warm), characters, kept ?? "unmeasured"]);
    colds.push(cold);
  }
});
await caughtUp();
const column = (name: string) => HEADER.indexOf(name);
colds.forEach(
  (cold, index) => (rows[index + 1]![column("of it GC")] = ms(cold.map((time) => pausedWithin(time.span)))),
);
for (const row of rows) console.log(row.join(" | "));

const withShrinking = (count: number) => rows.find((row) => row[0] === count && row[1] === "yes")!;
const figure = (count: number, name: string) => Number(withShrinking(count)[column(name)]);
const met = (holds: boolean) => (holds ? "met" : "not met");
const coldGrowth = figure(50_000, "cold CPU ms") / figure(10_000, "cold CPU ms");
const targets = markdownTable([
  ["target (issue 11), 10,000 events with shrinking", "measured", ""],
  ["cold build ≤ 50 ms", `${figure(10_000, "cold ms")} ms`, met(figure(10_000, "cold ms") <= 50)],
  ["warm build ≤ 10 ms", `${figure(10_000, "warm ms")} ms`, met(figure(10_000, "warm ms") <= 10)],
  ["cold CPU grows linearly: 50,000 ÷ 10,000 events ≤ 5×", `${coldGrowth.toFixed(1)}×`, met(coldGrowth <= 5)],
]);

writeSection(
  "Building one request (`context-build.ts`)",
  `
The time \`MessageBuilder.build\` takes to make the next model call's request from a thread of 1,000, 10,000 and
50,000 events (turns of a question, a search returning a document of three passages, and an answer citing one; the
running turn has two searches). The events are decoded from stored JSON, as a store's read gives them. **cold** is a
new builder's first build (after a collection, outside the time); **warm** the same builder's next build after one
more event; **kept MB** what a builder holds after its cold build. **Shrinking: yes** has thresholds the thread is far
over (startAt 2,000 tokens, target 1,000), so every turn's results but the last are compressed or stubbed. Medians of
${RUNS.join(", ")} builds by size; CPU time is the process's (user and system); "of it GC" the collector's pauses
within the cold build. Every request is byte-identical to a cold build's (test/toolkit/context/incremental-build.test.ts),
and a build's reads are counted per turn in test/toolkit/context/build-work.test.ts.

${markdownTable(rows)}

${targets}

Run by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ${os.cpus().length} cores
(load average ${os.loadavg()[0]!.toFixed(1)}). To compare with another revision,
\`scripts/compare-context-build.sh <revision>\` runs this bench's cold builds alternately on both (below).
`,
);
