// A cold build's work grows linearly with the thread, and a warm build's not at all: counted here (each read of
// the thread's data, each call of a floor, each lookup in a table as large as the thread), so the counts are exact;
// the times are the bench's (bench/context-build.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { Input, ModelOutput, ToolOutput, type Event } from "../../../src/domain/events.js";
import { THREAD_NUMBERING } from "../../../src/domain/numbering.js";
import { Trace } from "../../../src/domain/trace.js";
import { THREAD_HANDLES } from "../../../src/runtime/tools/ids.js";
import { FULL, Floor, Tokens, cited, type Protects } from "../../../src/toolkit/index.js";
import { conversationBuilder, documentOf } from "../../fixtures/context-conversation.js";

/**
 * A thread of `turns` finished turns (a question, a search whose result is a document of three passages, and an
 * answer citing the first passage) and a running one (a question and two searches).
 */
function threadOf(turns: number): Event[] {
  const events: Event[] = [];
  const search = (turn: number) => {
    const id = `call-${turn}`;
    events.push(ModelOutput({ toolCalls: [{ id, name: "search", arguments: { query: `q${turn}` } }], model: "m" }));
    events.push(ToolOutput({ callId: id, elements: documentOf(`doc${turn}`, 3) }));
  };
  for (let turn = 0; turn < turns; turn += 1) {
    events.push(Input({ payload: `Question ${turn}?`, model: "m" }));
    search(turn);
    // The document is number 4 * turn + 1, its first passage the next.
    const source = `doc${turn}#0`;
    const written = 4 * turn + 2;
    events.push(
      ModelOutput({
        content: "The answer.",
        markers: [{ at: 11, text: ` [${written}]`, cited: [{ written, source }] }],
        model: "m",
      }),
    );
  }
  events.push(Input({ payload: "The last question?", model: "m" }));
  search(turns);
  search(turns + 1);
  return events;
}

/**
 * The work a counted build did: reads of the thread's data (events, their elements, calls, markers), floor calls, and
 * lookups in Maps and Sets of LARGE entries or more (tables as large as the thread: at tens of thousands of entries
 * each lookup misses the processor's caches, where reading records in the thread's order does not).
 */
interface Work {
  reads: number;
  floors: number;
  lookups: number;
}

const LARGE = 100;

type Lookup = (this: { size: number }, key: unknown) => unknown;

/** Run `build`, counting its lookups in large Maps and Sets into `work`. */
function countingLookups(work: Work, build: () => void): void {
  const methods = [
    [Map.prototype, "get"],
    [Map.prototype, "has"],
    [Set.prototype, "has"],
  ].map(([prototype, name]) => [prototype as unknown as Record<string, Lookup>, name as string] as const);
  const originals = methods.map(([prototype, name]) => prototype[name]!);
  methods.forEach(([prototype, name], index) => {
    const original = originals[index]!;
    prototype[name] = function (key) {
      if (this.size >= LARGE) work.lookups += 1;
      return original.call(this, key);
    };
  });
  try {
    build();
  } finally {
    methods.forEach(([prototype, name], index) => (prototype[name] = originals[index]!));
  }
}

/** The work of a cold build and of the warm build after it, and the characters of the warm build's request. */
interface Builds {
  cold: Work;
  warm: Work;
  characters: number;
}

/**
 * A copy of `value` whose objects and lists count each read of a property into `work` (a build reads the events
 * it was given, so a pass that read the thread once more per event, or per call, would show in the count).
 */
function counting<T>(value: T, work: Work): T {
  if (value === null || typeof value !== "object") return value;
  const copy = Array.isArray(value)
    ? value.map((item: unknown) => counting(item, work))
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, counting(item, work)]));
  return new Proxy(copy, {
    get(target, key, receiver) {
      if (typeof key === "string") work.reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  }) as T;
}

/**
 * The work of a new builder's build (cold) of a thread of `turns` turns but its last result, and of the same
 * builder's next build (warm), once the last result is appended: every result of a finished turn shrinks.
 */
function buildsOf(turns: number, floor: "counted" | "cited" = "counted"): Builds {
  const work: Work = { reads: 0, floors: 0, lookups: 0 };
  // `cited` itself is answered from the thread cache's flags, without a call: its calls are counted through another.
  const countedCited: Protects = (element, tool, before) => {
    work.floors += 1;
    return cited(element, tool, before);
  };
  const events = threadOf(turns).map((event) => counting(event, work));
  // A window the thread fits in, and thresholds it is far over: each call of the running turn shrinks.
  const builder = conversationBuilder(
    {
      startAt: new Tokens(2_000),
      target: new Tokens(1_000),
      minGain: null,
      protect: [new Floor(floor === "cited" ? cited : countedCited, FULL)],
    },
    10_000_000,
  );
  const before = Trace.of(events.slice(0, -1));
  // The indexes a trace keeps for its thread, made once for each trace a worker holds (not by a build).
  before.index(THREAD_NUMBERING);
  before.index(THREAD_HANDLES);
  const measured = (build: () => void): Work => {
    const [reads, floors, lookups] = [work.reads, work.floors, work.lookups];
    countingLookups(work, build);
    return { reads: work.reads - reads, floors: work.floors - floors, lookups: work.lookups - lookups };
  };
  const cold = measured(() => builder.build(before));
  let characters = 0;
  const warm = measured(() => {
    characters = builder.build(before.with([{ position: events.length, event: events.at(-1)! }])).request.characters;
  });
  return { cold, warm, characters };
}

describe("the work of a build", () => {
  let short: Builds, middle: Builds, long: Builds;
  beforeAll(() => {
    [short, middle, long] = [200, 400, 600].map((turns) => buildsOf(turns)) as [Builds, Builds, Builds];
  });

  it("cold: reads each turn of the thread and calls its floors the same number of times, however long the thread", () => {
    // Each 200 turns more add exactly the work the 200 before added: the work is a + b * turns.
    expect(long.cold.reads - middle.cold.reads).toBe(middle.cold.reads - short.cold.reads);
    expect(long.cold.floors - middle.cold.floors).toBe(middle.cold.floors - short.cold.floors);
    // And the work is of the thread: each turn is read, and its elements asked about.
    expect((middle.cold.reads - short.cold.reads) / 200).toBeGreaterThan(10);
    expect(middle.cold.floors - short.cold.floors).toBeGreaterThan(0);
  });

  it("cold: finds what it asks of each result in the thread's order, not in tables as large as the thread", () => {
    // Each element's number, each result's handle, place, state and call, and whether an element was cited (the
    // default floor): some 28 lookups a turn in such tables before; now about one, an element's number where the
    // order breaks.
    const lookups = [200, 600].map((turns) => buildsOf(turns, "cited").cold.lookups);
    expect(lookups[1]! / 600).toBeLessThan(1.5);
    expect(lookups[1]! - lookups[0]!).toBeGreaterThan(0);
  });

  it("warm, after one more event: the same however long the thread", () => {
    expect(long.warm).toEqual(short.warm);
    expect(middle.warm).toEqual(short.warm);
    // The new result is read, and the request shows every turn.
    expect(short.warm.reads).toBeGreaterThan(0);
    expect(long.characters).toBeGreaterThan(middle.characters);
    expect(middle.characters).toBeGreaterThan(short.characters);
  });
});
