/** Recordings: where each result and each element of a thread was recorded, for forms and for reopen. */
import { ModelOutput, Reopened, ToolOutput, type Event, type ToolCall } from "../../domain/events.js";

/** Where an element was first recorded: the result and its place among the result's elements. */
export interface Recording {
  output: ToolOutput;
  index: number;
}

/** The results, calls and element recordings of a thread's events (every stream). */
export class Recordings {
  private readonly outputs = new Map<string, ToolOutput>();
  private readonly calls = new Map<string, ToolCall>();
  private readonly firsts = new Map<string, Recording>();

  /** Read the events of a thread, every stream, in log order. */
  constructor(events: readonly Event[]) {
    for (const event of events) {
      if (ModelOutput.is(event)) for (const call of event.toolCalls) this.calls.set(call.id, call);
      if (!ToolOutput.is(event)) continue;
      if (event.callId !== null && !this.outputs.has(event.callId)) this.outputs.set(event.callId, event);
      // A reopen result holds no elements of its own: content is drawn from where a tool first recorded it.
      if (Reopened.is(event)) continue;
      event.elements.forEach((element, index) => {
        if (!this.firsts.has(element.id)) this.firsts.set(element.id, { output: event, index });
      });
    }
  }

  /** The result recorded for a call id, or undefined. */
  output(callId: string): ToolOutput | undefined {
    return this.outputs.get(callId);
  }

  /** The call with this id, or undefined. */
  call(callId: string): ToolCall | undefined {
    return this.calls.get(callId);
  }

  /** The name of the tool whose call has this id, or null. */
  toolOf(callId: string | null): string | null {
    return callId === null ? null : (this.calls.get(callId)?.name ?? null);
  }

  /** The result that first recorded an element id, and its place in it, or undefined. */
  firstRecorded(id: string): Recording | undefined {
    return this.firsts.get(id);
  }
}
