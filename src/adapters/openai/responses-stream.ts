/** Streamed Responses events assembled into fragments as they arrive, and one output at the end. */
import type { Response, ResponseOutputItem, ResponseStreamEvent } from "openai/resources/responses/responses";
import type { ModelOutput } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import { ReasoningDelta, type Fragment } from "../../ports/model.js";
import type { CallFacts } from "./response-mapping.js";
import { failureOf, outputOfResponse } from "./responses-output.js";

/**
 * The state of one streamed response: the finished output items by their index, and the final response
 * (response.completed or response.incomplete). Text and reasoning deltas are yielded as they arrive; the
 * output is made of the finished items, so a delta never changes what is recorded.
 */
export class ResponsesStreamAssembly {
  private readonly items = new Map<number, ResponseOutputItem>();
  private final: Response | null = null;

  constructor(private readonly model: string) {}

  /** Whether the response finished: only then is the output complete. */
  get finished(): boolean {
    return this.final !== null;
  }

  /** Take one event, and return its fragments. An error event or a failed response raises TransientError. */
  add(event: ResponseStreamEvent): Fragment[] {
    switch (event.type) {
      case "response.output_text.delta":
        return event.delta === "" ? [] : [event.delta];
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return event.delta === "" ? [] : [new ReasoningDelta(event.delta)];
      case "response.reasoning_summary_part.added":
        // The recorded reasoning joins a reasoning item's summary parts with a blank line.
        return event.summary_index > 0 ? [new ReasoningDelta("\n\n")] : [];
      case "response.output_item.done":
        this.items.set(event.output_index, event.item);
        return [];
      case "response.completed":
      case "response.incomplete":
        this.final = event.response;
        return [];
      case "response.failed":
        throw failureOf(event.response, this.model) ?? new TransientError(`The call of ${this.model} failed.`);
      case "error":
        throw new TransientError(
          `The model service for ${this.model} failed in the stream (${event.code ?? "error"}): ${event.message} The call can be tried again.`,
          { details: { code: event.code ?? null } },
        );
      default:
        return [];
    }
  }

  /** The complete output, once `finished`: the final response's items, else the finished items in their order. */
  output(facts: CallFacts): ModelOutput {
    const final = this.final!;
    const streamed = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const items = final.output !== undefined && final.output.length > 0 ? final.output : streamed;
    return outputOfResponse(final, items, facts);
  }
}
