/**
 * A long thread made quickly: completed turns of a question, a tool call with a 1 KB result and an answer,
 * as events to append to the store directly, so a benchmark needs no model to give a thread its history.
 */
import { Input, ModelOutput, ToolOutput, type Event } from "../../src/domain/index.js";

/** A tool result of about 1 KB, like a search's. */
export const RESULT = "words of a found document ".repeat(40);

/** The agent whose thread it is, and the tool call each prior turn makes. */
export interface HistoryShape {
  agent: string;
  tool: { name: string; arguments: Record<string, unknown> };
}

/** Completed turns of `shape.agent` (a question, a tool call with a 1 KB result, an answer): `count` events. */
export function history(count: number, shape: HistoryShape): Event[] {
  const events: Event[] = [];
  for (let turn = 0; events.length < count; turn++) {
    events.push(Input({ payload: `Question ${turn}?`, model: "scripted", origin: shape.agent, version: "bench" }));
    const id = `prior-${turn}`;
    events.push(ModelOutput({ toolCalls: [{ id, ...shape.tool }], origin: "model" }));
    events.push(ToolOutput({ callId: id, text: RESULT, origin: "tools" }));
    events.push(ModelOutput({ content: `Answer ${turn}.`, origin: "model" }));
  }
  return events.slice(0, count);
}
