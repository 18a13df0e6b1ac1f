/**
 * Benchmark: the time to build one request from traces of 1,000, 10,000 and 50,000 events, without
 * shrinking (no limits) and with shrinking (a policy whose thresholds the trace is far over, so every
 * call of the running turn compresses and stubs): cold (a new builder) and warm (the same builder, after
 * one more event is appended). Not a test: run `npm run bench`; it writes its section of bench/README.md.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { markdownTable, writeSection } from "./report.js";
import { caughtUp, pauses, within, type Span } from "./shared/pauses.js";
import {
  EventTypes,
  Input,
  ModelOutput,
  ToolOutput,
  Trace,
  THREAD_NUMBERING,
  type Event,
  type StoredEvent,
} from "../src/domain/index.js";
import { ToolDef } from "../src/ports/index.js";
import { BRACKETS } from "../src/runtime/index.js";
import { THREAD_HANDLES } from "../src/runtime/tools/ids.js";
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

// A child run (childRun): only the cold builds with shrinking of BENCH_CHILD_COUNT events, the medians of their wall
// ms and of the collector's pauses within them on stdout.
if (process.env.BENCH_CHILD_COUNT !== undefined) {
  const count = Number(process.env.BENCH_CHILD_COUNT);
  const { cold } = measure(WITH, eventsOf(count), RUNS[SIZES.indexOf(count)] ?? 15);
  await caughtUp();
  console.log(
    JSON.stringify({ wall: ms(cold.map((time) => time.wall)), gc: ms(cold.map((time) => pausedWithin(time.span))) }),
  );
  process.exit(0);
}

/**
 * Operations linear by construction, over the same events: run back to back as `steady` runs the builds, they show
 * what this machine alone makes of a longer thread's time per event (its caches, the collector's copying).
 */
const REFERENCES = {
  structuredClone: (events: readonly Event[]): unknown => structuredClone(events),
  "JSON.stringify": (events: readonly Event[]): unknown => JSON.stringify(events),
};
type Reference = keyof typeof REFERENCES;
const REFERENCE_NAMES = Object.keys(REFERENCES) as Reference[];

/**
 * Cold builds with shrinking of `count` events one after another, as a worker makes them: no collection before
 * each, and the last 8 builders kept (a builder keeps 8 threads), so each build pays its share of every collection
 * its garbage and what it keeps set off, whatever the size. The mean wall ms of a round of builds (some 200,000
 * events' worth), the median of 5 rounds, after 5 builds untimed. With `reference`, that operation over the events
 * instead of a build, its last 8 results kept.
 */
function steady(count: number, reference?: Reference): number {
  const events = eventsOf(count).slice(0, -1);
  const trace = Trace.of(events);
  const kept: unknown[] = [];
  const build = () => {
    let made: unknown;
    if (reference === undefined) {
      const builder = WITH();
      builder.build(trace);
      made = builder;
    } else made = REFERENCES[reference](events);
    kept.push(made);
    if (kept.length > 8) kept.shift();
  };
  for (let run = 0; run < 5; run += 1) build();
  const builds = Math.max(4, Math.round(200_000 / count));
  const means: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = performance.now();
    for (let run = 0; run < builds; run += 1) build();
    means.push((performance.now() - start) / builds);
  }
  return median(means);
}

// A steady run (childRun with `steady`): the mean cold build of BENCH_STEADY_COUNT events (or the mean run of the
// operation BENCH_STEADY_REFERENCE names), on stdout.
if (process.env.BENCH_STEADY_COUNT !== undefined) {
  const reference = process.env.BENCH_STEADY_REFERENCE as Reference | undefined;
  console.log(JSON.stringify({ wall: steady(Number(process.env.BENCH_STEADY_COUNT), reference), gc: 0 }));
  process.exit(0);
}

/**
 * The median cold build with shrinking of `count` events (wall ms, and the collector's pauses within it), in a
 * process of its own; with `megabytes`, its young generation's semi-space holds that many MB (with 2 MB, the
 * collector copies what a build of 10,000 events keeps while it runs, as it does at 50,000 events with the default
 * 16 MB); `steady`: the cold builds back to back instead (steady), without a collection before each, or with
 * `reference` that operation's runs back to back.
 */
function childRun(
  count: number,
  { megabytes, steady, reference }: { megabytes?: number; steady?: boolean; reference?: Reference } = {},
): { wall: number; gc: number } {
  const script = fileURLToPath(import.meta.url);
  const young = megabytes === undefined ? [] : [`--max-semi-space-size=${megabytes}`];
  const { stdout, status } = spawnSync(process.execPath, ["--expose-gc", ...young, "--import", "tsx", script], {
    env: {
      ...process.env,
      [steady || reference ? "BENCH_STEADY_COUNT" : "BENCH_CHILD_COUNT"]: String(count),
      ...(reference === undefined ? {} : { BENCH_STEADY_REFERENCE: reference }),
    },
    encoding: "utf8",
  });
  const figures =
    status === 0
      ? (JSON.parse(stdout.trim().split("\n").at(-1) ?? "null") as { wall: number; gc: number } | null)
      : null;
  if (figures === null || !Number.isFinite(figures.wall))
    throw new Error(
      `The ${reference ?? "cold builds"} of ${count} events${megabytes === undefined ? "" : ` with a ${megabytes} MB semi-space`} failed.`,
    );
  return figures;
}
const rows: (string | number)[][] = [
  [
    "events",
    "shrinking",
    "cold ms",
    "cold CPU ms",
    "of it system",
    "of it GC",
    "cold page faults",
    "warm ms",
    "warm CPU ms",
    "request characters",
    "kept MB",
  ],
];
// Each row's cold builds, in the order of the rows.
const colds: Timing[][] = [];
// Builders of a small thread first compile the code a build runs: the first size's kept MB would count it.
for (const make of [WITHOUT, WITH]) make().build(Trace.of(eventsOf(200)));
SIZES.forEach((count, index) => {
  const events = eventsOf(count);
  const runs = RUNS[index]!;
  for (const [label, make] of [
    ["no", WITHOUT],
    ["yes", WITH],
  ] as const) {
    const { cold, warm, characters, kept } = measure(make, events, runs);
    const row = [
      count,
      label,
      ms(cold.map((time) => time.wall)),
      ms(cold.map((time) => time.cpu)),
      ms(cold.map((time) => time.system)),
      // Filled in below, once the observer has heard of the pauses.
      "",
      median(cold.map((time) => time.faults)),
      ms(warm.map((time) => time.wall)),
      ms(warm.map((time) => time.cpu)),
      characters,
      kept ?? "unmeasured",
    ];
    rows.push(row);
    colds.push(cold);
  }
});
// The pauses within each cold build, once the observer has heard of them.
await caughtUp();
const gcColumn = rows[0]!.indexOf("of it GC");
colds.forEach((cold, index) => {
  const row = rows[index + 1]!;
  row[gcColumn] = ms(cold.map((time) => pausedWithin(time.span)));
  console.log(row.join(" | "));
});

// The row of the issue's targets: 10,000 events with shrinking.
const target = rows.find((row) => row[0] === 10_000 && row[1] === "yes")!;
const largest = rows.find((row) => row[0] === 50_000 && row[1] === "yes");
const [coldWall, coldCpu, warmCpu, keptMb] = ["cold ms", "cold CPU ms", "warm CPU ms", "kept MB"].map((name) =>
  rows[0]!.indexOf(name),
) as [number, number, number, number];
// Linear growth from 10,000 to 50,000 events is 5x: a figure's growth, of the times cold and warm, and of the cold
// wall time without the collector's pauses (the build's own work).
const grown = (figure: (row: (string | number)[]) => number) =>
  largest ? `${(figure(largest) / figure(target)).toFixed(1)}×` : "unmeasured";
const growth = (column: number) => grown((row) => Number(row[column]));
const restGrowth = grown((row) => Number(row[coldWall]) - Number(row[gcColumn]));
// µs an event of a build of `count` events that took `wall` ms.
const perEventOf = (wall: number, count: number) => ((wall * 1000) / count).toFixed(1);
// The cold wall time with shrinking per event, in µs, at a size.
const perEvent = (count: number) => {
  const row = rows.find((candidate) => candidate[0] === count && candidate[1] === "yes");
  return row ? perEventOf(Number(row[coldWall]), count) : "unmeasured";
};

/**
 * The machine's own cost of touching each event once: ns to read one field (its type) of every event of a
 * thread of `count` events, in order, about a million reads. No builder: the growth with the thread is the
 * memory's (caches, address translation), which every pass of a build over the events pays as well.
 */
function readCost(count: number): number {
  const events = Trace.of(eventsOf(count)).events;
  const rounds = Math.max(1, Math.round(1_000_000 / events.length));
  let tools = 0;
  const times: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const start = performance.now();
    for (let round = 0; round < rounds; round += 1)
      for (let index = 0; index < events.length; index += 1) if (events[index]!.type === "tool-output") tools += 1;
    times.push(((performance.now() - start) * 1e6) / (rounds * events.length));
  }
  // Read, so the loop is not left out.
  if (tools === 0) throw new Error("The bench's thread has no tool results.");
  return Number(median(times).toFixed(1));
}
const reads = SIZES.map((count) => ({ count, ns: readCost(count) }));

/**
 * The machine's time to read memory at random places, by how much memory is read: ns a read, each read's place
 * found by the one before (so the reads wait on each other, as a lookup of a record reached by a pointer does), over
 * 64-byte lines spread through `megabytes` MB. A build's lookups read records spread through what the thread and the
 * builder hold, some 2 KB an event.
 */
function randomReadCost(megabytes: number): number {
  const slots = (megabytes * 1024 * 1024) / 4;
  const lines = slots / 16;
  const next = new Int32Array(slots);
  // One cycle through every line, in a shuffled order.
  const order = Int32Array.from({ length: lines }, (_, index) => index);
  for (let index = lines - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  for (let index = 0; index < lines; index += 1) next[order[index]! * 16] = order[(index + 1) % lines]! * 16;
  const reads = 2_000_000;
  let at = 0;
  const start = performance.now();
  for (let read = 0; read < reads; read += 1) at = next[at]!;
  const ns = ((performance.now() - start) * 1e6) / reads;
  // Read, so the loop is not left out.
  if (at < 0) throw new Error("A random read went astray.");
  return Number(ns.toFixed(1));
}
const randomReads = [4, 16, 32, 64, 128].map((megabytes) => ({ megabytes, ns: randomReadCost(megabytes) }));

/**
 * The ms to make the indexes a trace keeps for its thread and a cold build reads (element numbers, result
 * handles): once for each trace a worker reads, shared by the builders and the tool checks. Median of 5, each on
 * a new trace of the same events, after a collection.
 */
function indexCost(count: number): number {
  const events = eventsOf(count);
  const times: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    const trace = Trace.of(events);
    collect();
    settle();
    const start = performance.now();
    trace.index(THREAD_NUMBERING);
    trace.index(THREAD_HANDLES);
    times.push(performance.now() - start);
  }
  return Number(median(times).toFixed(1));
}
const indexes = SIZES.map((count) => ({ count, ms: indexCost(count) }));

// Alternating, three processes each.
const young = { small: [] as number[], usual: [] as number[] };
for (let round = 0; round < 3; round += 1) {
  young.small.push(childRun(10_000, { megabytes: 2 }).wall);
  young.usual.push(childRun(10_000, { megabytes: 16 }).wall);
}
console.log(
  `10,000 events cold with a 2 MB semi-space ${young.small.join(", ")} ms, with 16 MB ${young.usual.join(", ")}`,
);

// Each size in processes of its own, in turn, five rounds: the machine's speed drifts over a run, and so each size
// meets the same drift (in one process, building one size changes the heap the next one starts from).
const ROUNDS = 5;
const rounds = SIZES.map(() => [] as { wall: number; gc: number }[]);
for (let round = 0; round < ROUNDS; round += 1) SIZES.forEach((count, index) => rounds[index]!.push(childRun(count)));
const inTurn = rounds.map((figures) => ({
  walls: figures.map(({ wall }) => wall),
  wall: ms(figures.map(({ wall }) => wall)),
  gc: ms(figures.map(({ gc }) => gc)),
}));
console.log(
  `in turn, a process each: ${SIZES.map((count, index) => `${count}: ${inTurn[index]!.walls.join(", ")} ms`).join("; ")}`,
);
// Back to back, each size in a process of its own, in turn, three rounds; the references in the same rounds.
const steadyWalls = SIZES.map(() => [] as number[]);
const referenceWalls = new Map(REFERENCE_NAMES.map((reference) => [reference, SIZES.map(() => [] as number[])]));
for (let round = 0; round < 3; round += 1)
  SIZES.forEach((count, index) => {
    steadyWalls[index]!.push(childRun(count, { steady: true }).wall);
    for (const [reference, walls] of referenceWalls) walls[index]!.push(childRun(count, { reference }).wall);
  });
const steadyWall = steadyWalls.map((walls) => Number(median(walls).toFixed(1)));
console.log(
  `back to back: ${SIZES.map((count, index) => `${count}: ${steadyWalls[index]!.map((wall) => wall.toFixed(1)).join(", ")} ms`).join("; ")}`,
);
// µs an event, by size, of the builds and of each reference, back to back; and how much that grew from the
// smallest size to the largest.
const perEventBackToBack = (walls: number[][]) => walls.map((runs, index) => (median(runs) * 1000) / SIZES[index]!);
const perEventGrowth = (perEvent: number[]) => perEvent.at(-1)! / perEvent[0]!;
const buildPerEvent = perEventBackToBack(steadyWalls);
const references = [...referenceWalls].map(([name, walls]) => ({ name, perEvent: perEventBackToBack(walls) }));
const leastReferenceGrowth = Math.min(...references.map(({ perEvent }) => perEventGrowth(perEvent)));
console.log(
  `µs an event back to back: build ${buildPerEvent.map((us) => us.toFixed(2)).join(", ")}; ` +
    references.map(({ name, perEvent }) => `${name} ${perEvent.map((us) => us.toFixed(2)).join(", ")}`).join("; "),
);
// The line through the cold wall times at 1,000 and 10,000 events, read at 50,000 events, against the build of
// 50,000 events, with and without the collector's pauses (which a build of 10,000 events does not pay).
const [small, middle, large] = inTurn as [(typeof inTurn)[0], (typeof inTurn)[0], (typeof inTurn)[0]];
const line = middle.wall + ((middle.wall - small.wall) * (50_000 - 10_000)) / (10_000 - 1_000);
const offLine = (wall: number) => `${wall.toFixed(1)} ms, ${(((wall - line) / line) * 100).toFixed(1)}% off it`;
console.log(`the trace's indexes: ${indexes.map(({ count, ms }) => `${count}: ${ms} ms`).join(", ")}`);
console.log(`one field read per event: ${reads.map(({ count, ns }) => `${count}: ${ns} ns`).join(", ")}`);
console.log(`a random read: ${randomReads.map(({ megabytes, ns }) => `${megabytes} MB: ${ns} ns`).join(", ")}`);

/**
 * One builder with shrinking builds each prefix of the thread of `count` events from `from` on, in turn, as
 * a worker does at each model call: the median CPU ms of a turn's first build (its last event an input)
 * and of the others.
 */
function prefixes(count: number, from: number): { first: number; others: number } {
  const events = eventsOf(count);
  const made = WITH();
  // Each trace grows the one before by an event, as a worker's cached trace is topped up.
  let trace = Trace.of(events.slice(0, from));
  made.build(trace);
  const first: number[] = [];
  const others: number[] = [];
  for (let end = from + 1; end <= events.length; end += 1) {
    trace = trace.with([{ position: end, event: events[end - 1]! }]);
    const { cpu } = timed(() => made.build(trace));
    (Input.is(events[end - 1]) ? first : others).push(cpu);
  }
  return { first: ms(first), others: ms(others) };
}

const PREFIXES = { count: 10_000, from: 9_000 };
const turns = prefixes(PREFIXES.count, PREFIXES.from);
console.log(`prefixes: a turn's first build ${turns.first} ms CPU, the others ${turns.others}`);

writeSection(
  "Building one request (`context-build.ts`)",
  `The time that \`MessageBuilder.build\` takes to make the request of the next model call, from a trace of
1,000, 10,000 and 50,000 events: turns of a question, a search whose result is a document with three
passages of about 350 characters, and an answer that cites one passage; the running turn has two
searches, so the builder works the forms out at three calls.

- **cold** is a new builder's first build of the trace: a trace the worker holds, whose element numbers and
  result handles are indexes the trace keeps, made once for it and read by the tool checks as well. Making them
  for a new trace took ${indexes.map(({ count, ms }) => `${ms} ms at ${count.toLocaleString("en")} events`).join(", ")} in this run (once per trace a worker reads, not
  per build).
- **warm** is the same builder's next build, after one more event (the running turn's last result) is
  appended (the trace grown by it, \`Trace.with\`, as a worker tops up the trace it keeps): the builder keeps what it rendered of the thread (each event's messages, each result as each
  Shorten made it, each element's xml opening (or its length, where only measured) as a root and as a part and its escaped text, the length of
  each result in each form it was measured in, the shrink pass at each call, and the messages it laid out
  last; numbers and handles are the trace's), so it renders only the new event, plans only the new call (from the
  first offer of each shrink that the call before left open), and lays out only what follows the first event or
  result whose shape changed (comparing only the results whose state the passes since the last layout set). The builders that \`forTurn\` makes
  share their base builder's cache (the 8 threads built last), so a thread's next turn and a worker's next
  activity build warm too, when their trace holds the same event objects (a trace the worker keeps and
  tops up); each kept render is checked against the turn's parts (renderInput, tool definitions,
  citations, limits; prompt, model and budget for the passes).
- **kept MB** is what a new builder holds after its cold build (the messages it laid out last included), by the
  heap in use after a collection (the median of three builders): what the collector copies while a cold build
  runs, and what a worker holds for each thread it keeps (at most 8 per builder).
- **shrinking: no** is a builder without limits: every result full, no size checked.
- **shrinking: yes** has a window the trace fits in and thresholds it is far over (startAt 2,000 tokens,
  target 1,000, no minGain), so the default shrinks compress and stub the results of every turn but the
  last ones, with the cited passage of each kept full by the floor.
- The events are as a worker holds them: each checked, stored as JSON and decoded again, as a store's read
  gives it. Before, this benchmark built them in memory, where each passage's text was the rope of pieces its
  template made, and the build that first read a text flattened it (a copy the events then kept): 10,000
  events with shrinking took 133.1, 149.6 and 118.0 ms cold that way against 82.3, 96.2 and 115.1 decoded
  (three processes each, alternating, median of 15 builds each), the same request.

Median of ${RUNS.join(", ")} builds (by size), Node ${process.versions.node}, on the shared 2-core development
machine (load average ${os.loadavg()[0]!.toFixed(1)} when this ran): wall time, and the process's CPU time,
which leaves out the time spent waiting for a core but counts V8's parallel garbage collector threads
(so it can exceed the wall time); "of it GC" is the collector's pauses on the main thread within the cold build
(wall ms, as \`PerformanceObserver\` reports them). Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.

${markdownTable(rows)}

Every request is the same byte for byte as a cold build's (test/toolkit/context/incremental-build.test.ts,
which also checks that the builders of several turns send a new builder's request whatever parts each
turn gives, and that the next turn's builder renders only what is new). The work of a build is counted, not
timed, in test/toolkit/context/build-work.test.ts: each read a build makes of the thread's data (a property of an
event, an element, a call or a marker) and each call of its floor. For a cold build each 200 turns more add exactly
the reads and calls the 200 before added, and a warm build after one more event makes the same reads and calls
however long the thread, so what grows beyond linear in the times below is not the build's work.

Forms are planned from lengths: the xml layout sums a result's length from each element's kept pieces
(the opening's length, the escaped text, the closing tag, the newlines between them), and the result's text is made
only for the form that is sent (test/toolkit/context/measure.test.ts checks each length against the text
made in full). A Source that a Shorten copies with another text (a cap) takes the opening of the element
recorded under its id; the default compressed form (dropText) is measured from the recorded elements without
their text, and copied only when it is sent. A cold build still reads every event, once (its kind,
and the recordings), renders every event's messages once and measures each result in each form it passes
through (full, compressed, stubbed) to plan the forms, keeping one record per event (its kind, handle and
renders) for the builds that follow; a sixth or more of its CPU time is garbage collection, which grows with
what the build keeps (kept MB): each object kept is copied by the collector once or twice while the build
runs. Before the work on what a build keeps (one kind record per event type instead of one per event, xml
openings joined into one string instead of kept as the pieces \`+=\` made, records made with all their
fields, lists of their own length, a few entries in a list instead of a Map), a builder kept 20.2 MB after
the cold build of 10,000 events with shrinking and 14.2 MB after (heap after a collection, one process each),
and the collector's pauses within such a build went from 22–30 ms to 15–17 ms (alternating the two codes,
9 builds a round); the wall time moved less than this machine's noise at 10,000 events. Each cold build
here starts from a collected heap (the collector runs before it, outside the time), as a worker builds a
thread cold once, not after six other builders: before that, the garbage of the builders measured before
was a quarter of the median.

The lookups and the garbage of a cold build were cut once more (issue 11): each event's record is read by
its place in the thread (the map from event to record is made only when an event is asked about alone),
each element's pieces are kept by its number, an opening is measured without being made (most are measured
to plan the forms and never sent) from its attributes found into one list reused by every opening, and a
stub takes the floors of the compress decided at the same call when every floor lifts to FULL. A cold build
of 10,000 events with shrinking allocated 42 MB before and 28 MB after (a young generation large enough
for no collection to run, 3 builds each); alternating the two codes in one session, 21 builds a process, the
median cold build took 93.8, 91.5, 88.8 and 86.5 ms before against 70.8, 67.1, 71.4 and 70.4 after; at
50,000 events (5 builds a process) 646.7 and 700.2 ms against 547.6 and 567.2; at 1,000 events (101 builds)
5.7, 5.9 and 5.4 ms against 4.8, 4.8 and 4.6.

And once more, by what a CPU profile of the cold builds showed line by line: the list an opening's attributes
are found into is written over instead of emptied (an emptied array gave its storage back, and each opening grew
it again), a shortened result's handle line is made only when its content is read (its length summed from the
template), a passage's text is searched for the three characters to escape with indexOf (a regular
expression's test took six times as long), an element's pieces say whether it is a Source, the kind of an
event is found again only when a kind was declared since (one counter, not five sets' sizes), a view cuts the
thread by searching its positions by halves and slicing (a filter called a function per entry), xml's
nesting of a list is found into lists written over, and a string payload of Text (the default input type)
becomes its turn without zod's parse. A cold build of 10,000 events with shrinking allocated 27.1 MB before
and 22.3 MB after (heap sampling, 10 builds); alternating the two codes in one session (all but the last), 41
builds a process, the median cold build took 56.8, 54.2, 51.3, 51.5 and 53.2 ms before against 47.0, 48.9,
49.1, 49.7 and 46.9 after; at 50,000 events (7 builds a process) 493.4 and 492.8 ms against 459.4 and 458.2.
What is left is flat: the largest lines are the thread's element numbers (a table of every element id, filled
once and asked again for each element measured; a scratch build that read each measured element's number off
the element, as a bound on what a cheaper lookup could save, was not measurably faster), whether an element
was cited, each result's shapes, and the one collection of the young generation that a cold build of 10,000
events sets off (5 to 10 ms).

That collection was then taken out (issue 11, once more): a cold build of 10,000 events with shrinking allocated
22.2 to 23.1 MB, more than the young generation holds (16 MB), and now allocates 16.9 to 17.6 MB (5 builds each,
a young generation large enough for no collection to run), which fits once the code is warm, so the build
runs without a pause. What went: a model output's calls are the recorded list where every call shows as recorded
(no copy, no closures: \`shownArguments\` returns a call that names no id at once), its markers are put back
without copying a list that is in order, a Text input's message is its text (no turn object, no search for
elements), xml shows dropText's elements without copying them (the textless flags reach the layout, as they
reach its measure) and nothing nested without nodes, an opening is joined once into one string (not grown by +
and flattened), lists of offers and of an event's messages are read by index (an iterator's step was an object
each time), a cut of a thread is one trace (it was a view and a copy of the same cut), a view that shows every
event shows its own list without building another, a stub's shape key reuses its compress's, a fact record
points at its event type's kind record, a result's tool is asked once, result handles are a list by number,
results are listed by call id only when a reopen asks, and an attribute value is escaped after one loop over its
characters (a regular expression's test before). Alternating the two codes, 41 builds a process, each after a
collection whose background sweeping was waited out, the median cold build took 45.3, 47.0, 43.5, 48.3 and
42.3 ms (49.7, 52.1, 48.0, 53.3 and 46.5 ms of CPU) before against 42.2, 37.1, 35.6, 36.8 and 34.5 ms (43.5,
37.9, 36.5, 37.5 and 35.1 of CPU) after, in a quiet hour; in a busier one, with the code as it is now (a
compress's key made from its floors again), 58.1, 53.7, 67.5, 65.0 and 58.8 ms of CPU against 43.9, 52.6,
45.2, 54.3 and 40.3. At 1,000 events (101 builds) 3.4 and 3.3 ms against 3.1 and 3.2; at 50,000 events, which
allocate several times the young generation anyway, no change beyond the noise (360.9, 420.0, 417.5 and 396.8
ms against 378.8, 348.0, 369.8 and 582.7).

Two changes to how this benchmark measures came with it. The collection before each cold build is followed by
a 50 ms wait: V8 sweeps the heap on other threads after a full collection, and that sweeping ran within the
cold build and counted in its CPU time (7 to 10 ms more CPU than wall time at 10,000 events). And each row runs
as many untimed cold builds as it times: V8 optimizes what a build runs over its first builds at a size, on
other threads as well, and with 7 timed builds at 10,000 events the first ones were the slowest (54, 61, 52, 55,
48, 52, 45 ms in one process; the medians of two processes 52.1 and 59.4 against 38.6 to 46.4 over 15 builds).
A worker's code has been running long before it builds a thread cold.

A builder then stopped making the thread's element numbers and result handles for itself (issue 11, once more):
it reads the indexes the trace keeps, which a worker makes once for each trace it holds and which the tool checks
of a pass read as well (before, a pass on a thread read cold made them twice). A context's numbering still stays
as it was at its build when a longer trace takes the index over. Alternating the two codes, 21 builds a process,
the median cold build of 10,000 events with shrinking took 42.2, 39.9 and 43.1 ms before against 36.1, 32.3 and
35.7 after; at 50,000 events (7 builds) 377.0 and 351.5 against 373.5 and 357.9; at 1,000 events 3.2 against
3.4. The 10,000-event rows now take the median of 15 builds (7 before): in this session, medians of 7 of the same
code ran from 42 to 65 ms between runs.

A warm build then stopped reading every result twice (issue 11, once more). The new call's pass read each
offer of each shrink, though nearly all were closed (each result at or below the shrink's form at the call
before): it now starts after the offers the states it starts from closed. And the layout compared the shape of
each result it laid out last with the new states: it now compares only the results whose state the passes since
then set, found by the handle's number (where a call id recorded twice breaks the order of the handles, it
compares each as before). Alternating the two codes, a process each, the median of 25 warm builds of 50,000
events with shrinking took 5.1, 4.7 and 5.7 ms before against 2.8, 2.8 and 2.9 after; at 10,000 events (41
builds) 1.1 and 1.1 against 0.7 and 0.8. What is left of a warm build that grows with the thread is the copy of
the request's list of messages (one list of its own per request), about 2.7 ms at 50,000 events, most of it the
kernel faulting in the pages of a new list of 400 KB.

Building each prefix of the last ${(PREFIXES.count - PREFIXES.from).toLocaleString("en")} events of a ${PREFIXES.count.toLocaleString("en")}-event thread in turn with one builder (shrinking, as a
worker does at each model call; each trace grown from the one before by its new event, as a worker tops up the
trace it keeps), a turn's first build took ${turns.first.toFixed(1)} ms of CPU (median) and the others ${turns.others.toFixed(1)}.
A turn's first build plans its first call from every result full again, since the turns the shrinks
select have moved, but it goes on from the last turn's first pass where each of its decisions holds (none was of
a result that shows an element cited since): from the states that pass made, each shrink reading its offers from
where it stopped, and the layout comparing only the results the pass changed. The others keep the messages of the
last layout up to the first change.

A trace's lists of events are made by appending to a shorter trace's and remember which (domain/lists.ts), as
do the request's messages where the layout only grew: a build tells that the thread extends the one it read
last, and the request's hash that the messages extend the last request's, without comparing thousands of
events or messages. Before that, one run of this benchmark on the machine of this run (about twice as slow
as the one of the runs below) gave, with shrinking: 10,000 events warm 2.8 ms (4.7 CPU), 50,000 warm 17.8
(17.8 CPU); a turn's first build of the prefixes 6.7 ms of CPU and the others 0.8; the cold builds the same.

Before this work on measuring (issue 11, item 3), one run at load average 1.8 gave, with shrinking:
10,000 events cold 225.7 ms (298.4 CPU), warm 5.4 (6.4 CPU); 50,000 cold 1,640 ms (1,988 CPU), warm
74.1 (82.6 CPU); building each prefix of the last 1,000 of 10,000 events took 4.4 to 6.5 ms of CPU a
build (medians of two runs) but 27 to 30 for a turn's first. Before the builder kept anything between builds, every build was
cold: 10,001 events with shrinking took 758.5 and 937.7 ms in two runs on this machine (wall time), 1,001
events 63.8 ms. Before the work of issue 11 on allocation (each result shortened once per Shorten, each
element's xml opening made once, no per-event arrays in planning), one run at load average 1.9 gave, with
shrinking: 1,000 events cold 33.7 ms (43.7 CPU), warm 1.5; 10,000 cold 341 ms (397 CPU), warm 18.2
(20.1 CPU); 50,000 cold 2,241 ms (2,489 CPU), warm 138 (147 CPU).

Issue 11's targets for 10,000 events with shrinking are a cold build within 50 ms and a warm one within
10 ms, growing linearly. In this run they took ${target[coldWall]} ms cold (${target[coldCpu]} ms of CPU) and ${target[warmCpu]} ms of CPU warm:
the cold target is ${Number(target[coldCpu]) <= 50 ? "met" : "not met"}, the warm one ${Number(target[warmCpu]) <= 10 ? "met" : "not met"}. From 10,000 to 50,000 events (5× the events) the
cold CPU time grew ${growth(coldCpu)} and the warm ${growth(warmCpu)}; the cold wall time ${growth(coldWall)}, of it the collector's pauses
${target[gcColumn]} ms at 10,000 events and ${largest?.[gcColumn] ?? "unmeasured"} at 50,000, and the rest ${restGrowth}. Per event, the cold
build with shrinking took ${perEvent(1_000)}, ${perEvent(10_000)} and ${perEvent(50_000)} µs of wall time at 1,000, 10,000 and 50,000 events.
Measured in turn instead, each size in processes of its own and ${ROUNDS} rounds of them (each
a median of ${RUNS.join(", ")} cold builds, by size), so that each size meets the same drift of this machine's speed, the cold build
with shrinking took ${SIZES.map((count, index) => `${inTurn[index]!.walls.join(", ")} ms at ${count.toLocaleString("en")} events`).join("; ")}: medians ${inTurn.map(({ wall }) => wall).join(", ")} ms,
${SIZES.map((count, index) => perEventOf(inTurn[index]!.wall, count)).join(", ")} µs an event, and 50,000 ÷ 10,000 = ${(large.wall / middle.wall).toFixed(1)}×. The line through the times at 1,000 and
10,000 events gives ${line.toFixed(1)} ms at 50,000 events: the build took ${offLine(large.wall)}, and without the collector's
pauses (${large.gc} ms) ${offLine(large.wall - large.gc)}. A build of 10,000 events allocates less than V8's young generation holds and pauses for no collection;
one of 50,000 events allocates several times that (below). Built back to back instead, as a worker builds one
thread after another (no collection before each, the last 8 builders kept, so that every size pays its share of the
collections its builds set off: the mean of a round of some 200,000 events' worth of builds, the median of 5 rounds, a
process a size, three rounds of them), a cold build with shrinking took ${SIZES.map((count, index) => `${steadyWall[index]} ms at ${count.toLocaleString("en")} events`).join(", ")}:
${SIZES.map((count, index) => perEventOf(steadyWall[index]!, count)).join(", ")} µs an event, 10,000 ÷ 1,000 = ${(steadyWall[1]! / steadyWall[0]!).toFixed(1)}× and 50,000 ÷ 10,000 = ${(steadyWall[2]! / steadyWall[1]!).toFixed(1)}×.

Linear, then, by what measure? A build's work is counted in test/toolkit/context/build-work.test.ts (above): each
turn more adds the same reads and calls, however long the thread. Its time per event is not flat on this machine,
and neither is that of operations linear by construction: run the same way over the same events, back to back in
the same rounds (a process a size, the last 8 results kept), ${references.map(({ name, perEvent }) => `\`${name}\` took ${perEvent.map((us) => us.toFixed(2)).join(", ")} µs an event`).join(" and ")} at
1,000, 10,000 and 50,000 events, where the build took ${buildPerEvent.map((us) => us.toFixed(2)).join(", ")}. From 1,000 to 50,000 events the time per event grew
${perEventGrowth(buildPerEvent).toFixed(2)}× for the build against ${references.map(({ name, perEvent }) => `${perEventGrowth(perEvent).toFixed(2)}× for \`${name}\``).join(" and ")}: the build's grew ${perEventGrowth(buildPerEvent) <= leastReferenceGrowth ? "less than either reference's: no more than what this machine adds to work linear by construction (its caches, the collector's copying of what is kept). With its work counted the same for each turn, the build is linear as far as this machine can show" : "more than a reference's: more than this machine adds to work linear by construction, so not shown linear on this run"}.

What the machine itself does with a longer thread, measured in the same run without a builder: reading one
field of each event of the thread, in order (about a million reads), took ${reads.map(({ count, ns }) => `${ns} ns an event at ${count.toLocaleString("en")} events`).join(", ")}.
The events as a store's read decodes them lie together in memory, and read in order they cost about the same
per event on a longer thread (the last session's runs, with the events built in memory and on another machine
of this kind, read 13.5, 160.5 and 475.3 ns). Reads spread at random are another matter: a read at a random place,
the place found by the read before, took ${randomReads.map(({ megabytes, ns }) => `${ns} ns within ${megabytes} MB`).join(", ")} in the same run, and a cold build
keeps ${target[keptMb]} MB at 10,000 events and ${largest ? largest[keptMb] : "unmeasured"} MB at 50,000 (${((Number(target[keptMb]) * 1000) / 10_000).toFixed(1)} KB an event), beside the events themselves and
the trace's indexes. Besides, in this VM each page the heap grows into is faulted in by the kernel ("of it system"
and "cold page faults").

So a build now reads what it asks of each result in the order of the thread (issue 11, once more). In a CPU
profile of the cold builds of 10,000 and 50,000 events, the functions that grew most, 7–16× for 5× the events,
were the lookups in tables as large as the thread: an element's number by its id (two to four a result), a
result's handle by its call id, its place in the view and its state in a pass by its handle, its call by its call
id, and whether an element was cited (a set of ids). A lookup at 50,000 events waited for memory that one at
10,000 events found in the cache. Now the thread's numbering and result handles and the recorded calls first try
the entry after the one they answered last (and the numbering one step on, as far as its last jump: a pass asks
for one passage of each result), which is the answer nearly every time; the places and states are lists at the
handle's number; and the cited floor reads flags by element number that the thread's cache folds from the
answers' markers (ids cited before any result recorded them are kept apart and still answer). Alternating the two
codes, each size in a process of its own, four rounds, the median cold build with shrinking took 377.9, 488.9,
480.8 and 480.9 ms at 50,000 events before against 333.9, 391.2, 420.2 and 435.8 after; at 10,000 events 61.4,
70.4, 81.4 and 66.8 against 45.7, 53.9, 104.1 and 67.8 (a busy hour; the minima 49.0, 52.2, 54.9 and 48.6
against 41.0, 48.8, 67.5 and 50.2); at 1,000 events 4.4, 4.7, 8.2 and 10.1 against 7.4, 7.3, 7.5 and 6.7. The
lookup of an element's number took 60 ms of a cold build of 50,000 events before and 9 after (CPU profiles).

And the memory a cold build keeps was cut (issue 11, once more), since it is what the collector copies at 50,000
events and what the caches must hold: the lengths a measure reads of each recorded element (its escaped text, its
opening as a root and as a part, its tag) are kept in one Int32Array by element number, where a record of the
element's pieces was kept before (the record is now made only for an element that is shown); a shrunk result's
floors are one list, not a Map; a result measured later keeps its shown elements as fields, not in an object of
their own. A new builder's cold build with shrinking kept 8.4 MB at 10,000 events and 42.2 at 50,000 before, 7.3
and 36.4 after (the heap after a collection, one process each, on 2026-12-03): 14% less. The collector did not
measurably run less for it: a cold build of 50,000 events still ran four scavenges, 45.2 to 51.4 ms of them a
build before against 46.3 to 50.6 after (two rounds, alternating). Nor was the wall time's change larger than this
machine's noise (the median cold build of 10,000 events 54.9 to 59.9 ms before against 50.8 to 66.8 after, four
rounds, alternating; the minima 44.7 to 49.3 against 39.7 to 50.1).

Part of the growth beyond linear is the collector's, measured in the same run. A cold build of 10,000 events
allocates less than V8's young generation holds (a semi-space of 16 MB), so nothing it keeps is copied while it
runs; at 50,000 events it allocates several times that, and what it keeps is copied once or twice while it runs (to
the other semi-space, then to the old generation) and lies afterwards in the order the collector copied it, not in
the order it was made. The same 10,000 events in processes whose semi-space holds 2 MB, so that the collector runs
within the build as it does at 50,000 events, took ${young.small.join(", ")} ms against ${young.usual.join(", ")} ms with 16 MB
(child processes, alternating, median of 15 cold builds each): ${perEventOf(median(young.small), 10_000)} µs an event against
${perEventOf(median(young.usual), 10_000)}, where 50,000 events took ${perEvent(50_000)} µs an event above. The other way round, 50,000 events in processes whose
semi-space holds 256 MB, so that no collection runs within the build, took 287 and 299 ms in two of three processes
(435 in the third; 353 to 388 ms with 16 MB, medians of 5 cold builds, on 2026-12-02): 5.7 to 6.0 µs an event, still
more than at 10,000 events on that machine. What is left beyond the line is mostly the memory a build reads at 50,000 events (its
events' texts and what it keeps) no longer fitting in a cache that holds that of 10,000 events, and less the
collector's copying: with a 256 MB semi-space the build of 50,000 events grew no less (6.3 to 7.2×
the build of 10,000 events, three rounds of a process each, on 2026-12-03). A machine whose caches hold less shows
less of it.`,
);
