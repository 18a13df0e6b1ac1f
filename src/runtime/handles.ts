/** Result handles: the short names r1, r2, ... of a thread's tool results, in the order they were recorded. */
import { ToolOutput, type Event } from "../domain/events.js";

/** The handle of each result's call id, and the call id of each handle, for a thread's events (all streams). */
export interface Handles {
  /** The handle of a call id's result, such as "r3", or undefined. */
  handleOf(callId: string): string | undefined;
  /** The call id of a handle, or undefined for a handle that names no result. */
  callIdOf(handle: string): string | undefined;
}

/** Number the results of a thread's events: r1 is the first ToolOutput with a call id. */
export function resultHandles(events: readonly Event[]): Handles {
  const byCallId = new Map<string, string>();
  const byHandle = new Map<string, string>();
  for (const event of events) {
    if (!ToolOutput.is(event) || event.callId === null || byCallId.has(event.callId)) continue;
    const handle = `r${byCallId.size + 1}`;
    byCallId.set(event.callId, handle);
    byHandle.set(handle, event.callId);
  }
  return { handleOf: (callId) => byCallId.get(callId), callIdOf: (handle) => byHandle.get(handle) };
}
