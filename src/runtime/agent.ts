/** Agent: what a catalog runs. It parses a turn's input and builds the turn's graph. */
import type { z } from "zod";
import type { ElementType } from "../domain/elements.js";
import type { EventType, Input } from "../domain/events.js";
import type { Graph } from "./graph.js";
import { InputDeniedError } from "./errors.js";

/** An agent: its input type, the element and event types its threads record, and the graph of each turn. */
export interface Agent<R = any, T = any> {
  /** The schema that each fresh input's payload parses into. */
  readonly input: z.ZodType<T>;
  /** The element types its tools record beyond the core ones. */
  readonly elementTypes: readonly ElementType<any, any>[];
  /** The event types it records beyond the core ones. */
  readonly eventTypes: readonly EventType<any, any>[];
  /** Build the graph of one turn from the thread's resources, the parsed input and the input's model. */
  build(resources: R, turn: T, model: string | null): Graph | Promise<Graph>;
}

/** Parse an input's payload into an agent's input type, strictly. Returns the input and the parsed turn. */
export function accepted<T>(type: z.ZodType<T>, input: Input): [Input, T] {
  const result = type.safeParse(input.payload);
  if (result.success) return [input, result.data];
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || "(payload)";
  throw new InputDeniedError(`The input does not fit the agent's input type at "${field}": ${issue.message}`, {
    details: { field, issues: result.error.issues },
  });
}
