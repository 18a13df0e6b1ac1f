/** The re-run workflow's activity: the inputs of a recorded thread's turns, read from the store. */
import { Input, MAIN, TaskInput } from "../src/domain/events.js";
import type { RecordedInput, TurnInput } from "../src/temporal/contract.js";
import type { TurnAccess } from "./turn-access.js";

/** The inputs of the thread's turns on its main stream, in order (a task's input is its turn's, not one of its own). */
export async function recordedInputs(
  access: TurnAccess,
  argument: { agent: string; threadId: string },
): Promise<RecordedInput[]> {
  const trace = await access.catalog.read(argument.threadId, argument.agent);
  return trace
    .byType(Input)
    .filter((input) => input.stream === MAIN && !TaskInput.is(input))
    .map((input) => ({
      payload: input.payload as TurnInput["payload"],
      model: input.model,
      principal: input.principal,
    }));
}
