/** A waiting request as the workflow holds it, made by the activities that start and resume a turn's wait. */
import type { Request } from "../src/domain/events.js";
import { deadlineOf } from "../src/domain/requests.js";
import { shortened, type PendingRequest } from "../src/temporal/contract.js";

/**
 * A waiting request as the workflow holds it: small, with the time left until its deadline. In idsOnly
 * mode its text names the kind and the tool only (the question and the call's arguments stay in the trace).
 */
export function pendingOf(request: Request, idsOnly = false): PendingRequest {
  const deadline = deadlineOf(request);
  const tool = request.tool === null ? "" : ` of ${request.tool}`;
  const withheld = request.kind === "approval" ? `Approve a call${tool}.` : `A question${tool}.`;
  return {
    requestId: request.requestId,
    kind: request.kind,
    text: idsOnly ? withheld : shortened(request.text, 400),
    stream: request.stream,
    schema: request.schema,
    callId: request.callId,
    tool: request.tool,
    deadlineMs: deadline === null ? null : Math.max(0, deadline - Date.now()),
    deadline: deadline === null ? null : new Date(deadline).toISOString(),
    hasDefault: request.defaultAnswer !== null,
  };
}
