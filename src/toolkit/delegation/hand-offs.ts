/** The hand-offs of a delegation: one TaskInput per call of it in the parent's latest model output. */
import type { z } from "zod";
import { Input, ModelOutput, TaskInput, ToolOutput, type Event, type ToolCall } from "../../domain/events.js";
import type { JsonValue } from "../../domain/json.js";
import { Numbering } from "../../domain/numbering.js";
import { type Trace, turnEvents } from "../../domain/trace.js";
import { unparsedArguments } from "../../ports/tool-arguments.js";
import { resultHandles, idArguments } from "../../runtime/tools/ids.js";
import { taskStream } from "../../runtime/tools/delegation.js";
import { idProblems, misfit, withStringIds } from "../../runtime/tools/execute.js";
import { INPUT_ARGUMENT } from "./arguments.js";

/** What hands off the calls of one delegation. */
export interface HandOffParts {
  name: string;
  input: z.ZodType;
  args: z.ZodObject<any>;
  /** Whether the input sits under the one `input` argument. */
  wrapped: boolean;
  /** The JSON Schema each result must fit, recorded on the TaskInput, or null. */
  expects: Record<string, JsonValue> | null;
}

/**
 * One event per call of `parts.name` in the latest model output of the parent stream's running turn, in
 * call order: a TaskInput on the call's task stream, whose payload is the arguments (element ids real, as
 * the parent's LlmStep mapped them) and whose model is that of the turn's input; or, for a call whose
 * arguments do not fit or name no element of the accepted type, a ToolOutput with the reason as its error.
 */
export function handOffEvents(parts: HandOffParts, parent: Trace): Event[] {
  const events = parent.events;
  const turn = turnEvents(events);
  const output = turn.findLast((event): event is ModelOutput => ModelOutput.is(event));
  if (!output) return [];
  const opening = Input.is(turn[0]) ? turn[0] : null;
  const stream = output.stream;
  const thread = parent.thread.events;
  const context = { numbering: new Numbering(thread), handles: resultHandles(thread), ids: idArguments(parts.args) };
  return output.toolCalls
    .filter((call) => call.name === parts.name)
    .map((call): Event => {
      const checked = payloadOf(parts, call, context);
      if ("error" in checked) return ToolOutput({ callId: call.id, error: checked.error, stream });
      return TaskInput({
        payload: checked.payload,
        model: opening?.model ?? null,
        callId: call.id,
        expects: parts.expects,
        stream: taskStream(stream, call.id),
      });
    });
}

type Checked = { payload: JsonValue } | { error: string };

function payloadOf(
  parts: HandOffParts,
  call: ToolCall,
  context: { numbering: Numbering; handles: ReturnType<typeof resultHandles>; ids: ReturnType<typeof idArguments> },
): Checked {
  const unparsed = unparsedArguments(call.arguments);
  if (unparsed !== null) {
    return {
      error: `The arguments of ${parts.name} are not a JSON object: ${unparsed}. Call ${parts.name} again with its arguments as one JSON object.`,
    };
  }
  const args = withStringIds(call.arguments, context.ids);
  const parsed = parts.args.safeParse(args);
  if (!parsed.success) return { error: misfit(parts.name, parsed.error) };
  const wrong = idProblems(parsed.data as Record<string, unknown>, context.ids, context.numbering, context.handles);
  if (wrong.length > 0) return { error: wrong.join(" ") };
  const payload = parts.wrapped ? (args[INPUT_ARGUMENT] ?? null) : args;
  // The input's own checks (refinements) run on the payload as the task will parse it.
  const input = parts.input.safeParse(payload);
  if (!input.success) return { error: misfit(parts.name, input.error) };
  return { payload };
}
