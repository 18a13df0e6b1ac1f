/**
 * The shapes that the context draft, the thread cache and form planning share: what a call shows (Visible), what
 * the cache keeps of each event (KeptEvent), and what a shrink pass plans (PlannedForms). They live apart so that
 * the three modules import them, not each other.
 */
import type { Event, ToolOutput } from "../../domain/events.js";
import type { Message, ToolDef } from "../../ports/messages.js";
import { handleNumber } from "../../runtime/tools/ids.js";
import type { Form } from "./forms.js";
import type { ResultShape, ShownResult } from "./render.js";
import type { ContextPolicy } from "./context-policy.js";
import type { EventKind, Shrink } from "./shrink.js";

/** An event's messages and the characters they count, as ChatRequest counts them. */
export interface Rendered {
  messages: readonly Message[];
  characters: number;
}

/**
 * A few entries by key in one list: a result is shown in one to three shapes and shortened by one or two Shorten
 * functions, and a Map for each would hold more memory than the rest of what the cache keeps of the result.
 */
export class PairList<K, V> {
  // Made anew at each set, of its length: it is kept as long as its thread.
  private entries: readonly (K | V)[] = [];

  /** The value set for `key`, if any. */
  get(key: K): V | undefined {
    for (let index = 0; index < this.entries.length; index += 2)
      if (this.entries[index] === key) return this.entries[index + 1] as V;
    return undefined;
  }

  /** Add a value for a key that has none yet. */
  set(key: K, value: V): void {
    const entries = new Array<K | V>(this.entries.length + 2);
    for (let index = 0; index < this.entries.length; index += 1) entries[index] = this.entries[index]!;
    entries[this.entries.length] = key;
    entries[this.entries.length + 1] = value;
    this.entries = entries;
  }
}

/**
 * What the thread cache keeps of one event, found once: its kind and handle, and what it rendered to while the
 * cache's renders hold (one record per event, not a map per render).
 */
export interface KeptEvent {
  /** What the event is, one record for each type (shrink.ts kindOf). */
  kind: EventKind;
  /** The handle of a result with a call id, or undefined for any other event. */
  handle: string | undefined;
  /** The event's messages without reasoning, and with it. */
  messages: Rendered | undefined;
  reasoned: Rendered | undefined;
  /** The result as shown, by the key of its shape. */
  shown: PairList<string, ShownResult> | undefined;
  /** A reopen result with the content it names drawn in. */
  reopenedOutput: ToolOutput | undefined;
  /** The name of the tool whose call this result answers, once asked (toolOf); undefined until then. */
  tool: string | null | undefined;
}

/** Characters of shown events, and how many shown results show less than all of the result. */
export interface Sizes {
  characters: number;
  shortened: number;
}

/** A shown result, its place among the shown events, and what the cache keeps of it. */
export interface ShownPlace {
  result: ToolOutput;
  at: number;
  kept: KeptEvent;
}

/**
 * The shown results of a view, by handle. Views that extend one another share one list of the place where each
 * result shows, and each reads only the places before its end: a view that extends another adds its own results
 * to the list and copies none.
 */
export class ShownResults {
  constructor(
    /** Each result's place, at its handle's number: a pass reads them in handle order. */
    readonly places: (ShownPlace | undefined)[],
    /** How many events the view shows. */
    readonly end: number,
  ) {}

  /** The result that `handle` names, if the view shows it. */
  get(handle: string): ToolOutput | undefined {
    return this.place(handle)?.result;
  }

  /** The place of the result that `handle` names, if the view shows it. */
  place(handle: string): ShownPlace | undefined {
    const place = this.places[handleNumber(handle)];
    return place !== undefined && place.at < this.end ? place : undefined;
  }

  /** Whether the view shows the result that `handle` names. */
  has(handle: string): boolean {
    return this.place(handle) !== undefined;
  }
}

/** The events one call shows, and the summary that stands for the events before them. */
export interface Visible {
  events: readonly Event[];
  /**
   * The handle of each of `events` that is a result, by its place in `events`. Views that extend one another share
   * one list, which may run past `events`: read only its first `events.length`.
   */
  handles: readonly (string | undefined)[];
  summary: string | null;
  /** The shown results (those with a handle), by handle. */
  results: ShownResults;
  /** The size of the events with every result full; absent where shapes cannot be summed. */
  base?: Sizes;
}

/** A laid-out context: its messages and tools, whether it shows a result shortened, and its characters as ChatRequest counts them. */
export interface Layout {
  messages: readonly Message[];
  tools: readonly ToolDef[];
  shortened: boolean;
  characters: number;
}

/**
 * The messages of the shown events of the last layout, without the system message: where each event's messages
 * start, and the shape each result was laid out in, so the next layout keeps them up to its first change.
 */
export interface LaidOut {
  events: readonly Event[];
  /** The forms the results were laid out in. */
  forms: PlannedForms;
  messages: Message[];
  /** The index in `messages` of each event's first message, and the length of `messages` after the last. */
  starts: number[];
  /** The index in `events` of each result, its handle and the shape it was laid out in. */
  results: { at: number; handle: string; shape: ResultShape }[];
  /** Whether the numbers of the results' handles rise: then a result is found by its handle's number. */
  rising: boolean;
  /** The messages last handed out, the system message first if there was one. */
  sent?: readonly Message[];
}

/** The shape of a shrunk result, and the shrink and the call that gave it its form. */
export interface ResultState extends ResultShape {
  /** The shrink that gave the form. */
  by: Shrink;
  /** The call of the running turn at which the shrink gave the form: 0 for the turn's first. */
  call: number;
  /** The shape as a key (shapeKey), made with the state: a shrunk result's state lives on from build to build. */
  key: string;
}

/** The state of each shrunk result, by handle; a result that is not in it is full. */
export type ResultStates = ReadonlyMap<string, ResultState>;

/** A built-in shrink's offers at a pass, and how many of the first are closed: each result at or below its form. */
export interface ClosedOffers {
  offers: readonly string[];
  count: number;
}

/** The forms one shrink pass planned (the result states), with what the next pass and the layout read of them. */
export interface PlannedForms {
  states: ResultStates;
  /** What the states change from every result full: characters, and results shown shortened. */
  sizeChange: Sizes | undefined;
  /** The closed offers of each built-in shrink in these states. */
  closed: ReadonlyMap<Shrink, ClosedOffers>;
  /** The forms the pass started from and the handles whose state it set; undefined where a walk back ends. */
  startedFrom: { before: PlannedForms; changed: readonly string[] } | undefined;
}

/** One offer of a shrink and what the pass decided of it. */
export interface OfferDecision {
  handle: string;
  form: Form;
  /** The result's state when it was offered (undefined: full). */
  current: ResultState | undefined;
  /** The result the handle named, or undefined when the call did not show it. */
  result: ToolOutput | undefined;
  /** The state the result went to, or null when the offer was skipped. */
  state: ResultState | null;
  /** The characters it freed, and the change in results shown shortened. */
  freed: number;
  shortened: number;
}

/** What one built-in shrink of a turn's first pass did: its offers, how far it read them, and what it freed. */
export interface ShrinkTrail {
  offers: readonly string[];
  /** How many of the offers it read, and the first it left open (not taken, or not reached). */
  reached: number;
  open: number;
  /** The characters its decisions freed, and the change in results shown shortened. */
  freed: number;
  shortened: number;
}

/**
 * What the first pass of a turn decided of each offer, shrink by shrink. The first pass of the next turn starts
 * from the same forms (every result full) on a view that extends this one, so an offer of the same result from
 * the same state decides the same: its decision is taken, not made again.
 */
export interface PassTrail {
  /** The events of the pass's view, and those it showed: a view that extends both shows their results the same. */
  events: readonly Event[];
  shown: readonly Event[];
  summary: string | null;
  policy: ContextPolicy;
  /** Each shrink's offers, in the order it made them, with what was decided. */
  offers: OfferDecision[][];
  /** What each built-in shrink that ran read and freed: the next first pass may go on from it. */
  shrinks: (ShrinkTrail | undefined)[];
  /** The forms the pass made (those it returned, unless minGain left them out). */
  forms: PlannedForms;
}
