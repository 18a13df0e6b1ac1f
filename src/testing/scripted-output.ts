/** What a test model is given for one call: a plain string, or part of a ModelOutput. */
import { ValueError } from "../domain/errors.js";
import type { JsonValue } from "../domain/json.js";
import type { Marker, ToolCall, Usage } from "../domain/events.js";
import { parseToolArguments } from "../ports/tool-arguments.js";

/** A tool call to script: the id is generated when missing; string arguments are parsed as a model's text. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** The arguments, or their text as a model writes it (text that is not a JSON object stays unparsed). */
  arguments?: Record<string, JsonValue> | string;
}

/** Part of a ModelOutput. A whole ModelOutput event fits too: its header fields are ignored. */
export interface ScriptedTurn {
  /** The text, with citation markers written in it such as "[2]": the runtime cuts them. */
  content?: string;
  toolCalls?: readonly ScriptedToolCall[];
  reasoning?: string | null;
  /** Null or missing: "tool_calls" when the output calls tools, else "stop". */
  finishReason?: string | null;
  usage?: Usage | null;
  /** Null or missing: the model the call resolves to. */
  model?: string | null;
  /** Must be empty: write markers in the content, as a model does. */
  markers?: readonly Marker[];
}

/** One output for a test model: a string is the content of an output that calls no tool. */
export type ScriptedOutput = string | ScriptedTurn;

/** A scripted output checked and completed: every tool call has an id and parsed arguments. */
export interface ScriptedReply {
  content: string;
  toolCalls: ToolCall[];
  reasoning: string | null;
  finishReason: string;
  usage: Usage | null;
  model: string | null;
}

/** Gives tool-call ids "call_1", "call_2", ..., skipping ids that are taken. */
export class CallIds {
  private count = 0;
  private readonly taken = new Set<string>();

  /** Mark ids as taken, such as the ones a script names itself. */
  take(ids: Iterable<string>): void {
    for (const id of ids) this.taken.add(id);
  }

  /** The next free id. */
  next(): string {
    let id: string;
    do id = `call_${++this.count}`;
    while (this.taken.has(id));
    this.taken.add(id);
    return id;
  }
}

/** The ids that a scripted output names itself. */
export function namedIds(output: ScriptedOutput): string[] {
  return typeof output === "string" ? [] : (output.toolCalls ?? []).flatMap((call) => (call.id ? [call.id] : []));
}

/** Check a scripted output and complete it. `where` names it in errors, such as "output 2 of the script". */
export function scriptedReply(output: ScriptedOutput, ids: CallIds, where: string): ScriptedReply {
  if (typeof output === "string")
    return { content: output, toolCalls: [], reasoning: null, finishReason: "stop", usage: null, model: null };
  if (output === null || typeof output !== "object") {
    throw new ValueError(`${where} must be a string or part of a ModelOutput, not ${JSON.stringify(output)}.`);
  }
  if (output.content !== undefined && typeof output.content !== "string")
    throw new ValueError(`${where} has content that is not a string.`);
  if ((output.markers ?? []).length > 0) {
    throw new ValueError(
      `${where} has markers: write them in the content instead, such as "Four times a year [2].", and the runtime cuts them.`,
    );
  }
  const toolCalls = (output.toolCalls ?? []).map((call, index) =>
    toolCallOf(call, ids, `${where}, tool call ${index + 1}`),
  );
  return {
    content: output.content ?? "",
    toolCalls,
    reasoning: output.reasoning ?? null,
    finishReason: output.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    usage: output.usage ?? null,
    model: output.model ?? null,
  };
}

function toolCallOf(call: ScriptedToolCall, ids: CallIds, where: string): ToolCall {
  if (typeof call?.name !== "string" || call.name === "")
    throw new ValueError(`${where} needs the name of the tool it calls.`);
  const args = call.arguments ?? {};
  if (typeof args !== "string" && (args === null || typeof args !== "object" || Array.isArray(args))) {
    throw new ValueError(`${where} has arguments that are neither an object nor the text of one.`);
  }
  return {
    id: call.id || ids.next(),
    name: call.name,
    arguments: typeof args === "string" ? parseToolArguments(args) : structuredClone(args),
  };
}
