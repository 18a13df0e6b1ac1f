/**
 * nextWork: where a stream stands, from the trace alone. The unit activities return this with their
 * result; the workflow asks for it on its own only where no unit ran before (a task started without it).
 */
import { Context } from "@temporalio/activity";
import type { PlannedWork, TurnScope } from "../src/temporal/contract.js";
import { reported } from "./failures.js";
import { plannedWork, traceOf, type TurnAccess } from "./turn-access.js";

/** The pending node of the stream and its work, as the local runner finds it. */
export async function nextWork(access: TurnAccess, scope: TurnScope): Promise<PlannedWork> {
  return reported(
    async () => plannedWork(access, scope, await traceOf(access, scope)),
    Context.current().cancellationSignal,
  );
}
