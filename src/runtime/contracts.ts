/**
 * The runtime's contracts: what a tool, a citation strategy, a context builder and a step are to the
 * runners. Both runners (local and Temporal) drive steps through these alone (DESIGN.md §3).
 */
import type { z } from "zod";
import type { Element } from "../domain/elements.js";
import type { Event, Stream, ToolCall, ToolOutput } from "../domain/events.js";
import type { Numbering } from "../domain/numbering.js";
import type { Trace } from "../domain/trace.js";
import type { ChatRequest } from "../ports/request.js";
import type { Fragment, PreparedRequest } from "../ports/model.js";
import type { ToolDef } from "../ports/messages.js";
import type { CallKind, Observer } from "../ports/observer.js";
import type { Ask } from "./tools/asking.js";

/** What the runtime gives one tool call besides its arguments. */
export interface ToolCallContext {
  /** The thread's trace before the call: the step reads Recorded values and limits from it. */
  trace: Trace;
  /** The events of the running turn on the call's stream, the Input first. */
  turn: readonly Event[];
  /** The id of the call. */
  callId: string;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Tells the runner the call is alive (a Temporal activity heartbeat). */
  heartbeat?: () => void;
  /** Whether identical calls run again, for a tool that does not say (its `repeats` is null). Default false. */
  repeats?: boolean;
  /** Ask a person mid-call (see Question); the tool step gives each call its own. */
  ask?: Ask;
}

/** A per-turn limit of a tool: checked before the call runs; a refused call gets `error` as its result. */
export interface Limit {
  /**
   * The error the model reads when `call` would pass the limit, else null. `turn` holds the call's model
   * output, so a limit can count the calls that came before it in the same output.
   */
  check(turn: readonly Event[], call: ToolCall): string | null;
}

/** A tool the model can call: its definition, and how to run one call with parsed arguments. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The zod schema of the arguments the model writes (ElementId and ResultHandle fields included). */
  readonly args: z.ZodObject<any>;
  /** The tool's per-turn limit, or null. */
  readonly limit: Limit | null;
  /** Whether a call identical to an earlier successful one runs again; null follows the agent's setting. */
  readonly repeats: boolean | null;
  /** The names of the tool's bound values that nothing bound yet: a turn refuses such a tool. */
  readonly unbound: readonly string[];
  /** The argument descriptions the model reads, by argument name. */
  readonly argumentDescriptions: Readonly<Record<string, string>>;
  /** Whether a call with these (parsed) arguments waits for a person's approval before it runs; absent never waits. */
  needsApproval?(args: Record<string, unknown>): boolean;
  /**
   * Whether a server lists the tool's definition (an MCP server's tool): it may change between turns, so a
   * model call records the offered tools (ToolsListed) when they changed, and replay rebuilds from that record.
   */
  readonly listed?: boolean;
  /** The definition offered to the model. */
  def(): ToolDef;
  /** A copy with other texts: a new description and argument descriptions. */
  withTexts(texts: { description?: string | null; arguments?: Record<string, string> }): Tool;
  /** Run one call: `args` parsed by `args` and mapped to real ids. Errors propagate to the tool step. */
  invoke(args: Record<string, unknown>, context: ToolCallContext): Promise<ToolOutput>;
}

/** A cited number as a strategy read it from the text. */
export interface ParsedMarker {
  at: number;
  text: string;
  numbers: number[];
}

/** How the model is told to cite, and how its markers are read back. */
export interface CitationStrategy {
  /** The marker of one element number, such as "[4]". */
  write(number: number): string;
  /** The markers of several numbers, such as "[4][5]". */
  writeAll(numbers: readonly number[]): string;
  /** Cut the markers out of a text: the clean text, and each marker with its position in it. */
  parse(text: string): { content: string; markers: ParsedMarker[] };
}

/** What one model call gets: the request, the model's name, and the numbering and citations to read its output by. */
export interface ModelContext {
  request: ChatRequest;
  model: string;
  numbering: Numbering;
  citations: CitationStrategy | null;
}

/** Why one result has its form at a model call, as a context builder explains it: MessageBuilder gives a Shrunk. */
export interface ExplainedForm {
  /** The result's handle, such as "r1". */
  readonly result: string;
  /** The form the result has: STUBBED (0), COMPRESSED (1) or FULL (2). */
  readonly form: number;
  /** What gave the form, such as a shrink; `String(by)` names it. */
  readonly by: unknown;
  /** The number of model calls before the call at which it gave the form. */
  readonly at: number;
}

/** Builds the context of the next model call from the trace: a pure function of the trace. */
export interface ContextBuilder {
  /** The messages, tools and numbering of the next model call, from the trace alone. */
  build(trace: Trace): ModelContext;
  /** Why each shrunk result has its form at the next model call, in result order; a builder that shrinks nothing leaves it out. */
  explain?(trace: Trace): readonly ExplainedForm[];
  /**
   * Refuse a turn's input before it is recorded when the first call of a trace that holds nothing but
   * that input cannot fit the model's limits (InputTooLargeError). Absent: every input fits.
   */
  checkInput?(trace: Trace): void;
}

/** The shown form of elements: the text of one event's elements, under their numbers. */
export type Show = (
  elements: readonly Element[],
  numbering: Numbering,
  tool: string | null,
  citations: CitationStrategy | null,
) => string;

/** One unit of a step's work: one model call, one tool call, one task, or other work of a step of your own. Small: it travels through Temporal. */
export interface Work {
  /** The key that `run` takes: a tool call's id, or the model call's pass. */
  key: string;
  /**
   * A model call, a tool call, "task" or "step" for work that calls neither. "task" is the unit of work
   * that hands off a task (a ToolDelegation call), runs its stream's turn and hands back the result: the
   * runner runs it with the task protocol (runner/task.ts), never with `run`, and its key is the call's id.
   */
  kind: CallKind | "step" | "task";
  /** The model's name or the tool's name. */
  name: string;
  /** A short summary for logs and the Temporal UI, such as `search("bulky waste")`. */
  summary: string;
}

/** What a step gets for planning and for running one unit of work. */
export interface StepContext {
  threadId: string;
  /** The agent's name in its catalog, or null. */
  agent: string | null;
  stream: Stream;
  /** The node of the graph this step runs as: events it records carry it as their origin. */
  node: string;
  /** The whole thread's trace (every stream), as last read. */
  trace: Trace;
  /**
   * Set when someone follows the thread: an LlmStep streams and passes each fragment here, and waits for a
   * returned promise before the next fragment, so a live channel sends them all before the output is recorded.
   */
  onFragment?: (fragment: Fragment) => void | Promise<void>;
  signal?: AbortSignal;
  /** Tells the runner the step is alive (a Temporal activity heartbeat). */
  heartbeat?: () => void;
  observer?: Observer;
}

/**
 * A step of a graph: a function of the trace that says what work is pending and runs one unit of it.
 * `run` returns the events to append, or none when the trace already records that unit's work.
 */
export interface Step {
  /** The pending work of this node, from the trace. No work means the node is done. */
  plan(context: StepContext): Work[];
  /** Run one unit of work; return its events (unsealed, with this node as origin). */
  run(context: StepContext, key: string): Promise<Event[]>;
  /** Whether the trace already records the work of `key`: the runner re-checks it before each append. */
  done(context: StepContext, key: string): boolean;
  /**
   * Whether the events of `key` may be appended now. A step whose units must land in an order that does
   * not depend on which finished first (the tool calls of one model output, in call order) says no until
   * the units before `key` are recorded; the runner waits and asks again. Default: always.
   */
  ready?(context: StepContext, key: string): boolean;
  /**
   * Refuse a turn's input before it is recorded, when this step, the first with work, could never run
   * on it: `context.trace` holds nothing but the input. Absent: the step takes any input the agent admits.
   */
  checkInput?(context: StepContext): void;
}

/**
 * A step that makes a model call and can show that call without making it: an LlmStep, or a step that wraps
 * one (MessageBuilder's compaction). replay and explain read a graph's model node through it alone.
 */
export interface ModelStep extends Step {
  /** The context the next call gets, rebuilt from the trace. */
  rebuild(context: StepContext): ModelContext;
  /** Why each shrunk result has its form at the next call; absent or empty when the builder explains nothing. */
  explain?(context: StepContext): readonly ExplainedForm[];
  /** The request as the model's adapter would send it, with what the adapter changed (null when it cannot say); nothing is sent. */
  prepare?(request: ChatRequest): Promise<PreparedRequest | null>;
}

/** Whether a step can rebuild its model call's context: a ModelStep. */
export function isModelStep(step: Step | undefined): step is ModelStep {
  return typeof (step as Partial<ModelStep> | undefined)?.rebuild === "function";
}
