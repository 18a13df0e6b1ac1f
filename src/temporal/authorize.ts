/**
 * The authorization hook of a turn: the worker calls it before a turn opens (before the thread is read
 * or written), and the HTTP app before it starts one. It decides whether `principal` may run a turn of
 * `agent` on `threadId`.
 */
import { CallerError } from "../domain/errors.js";

/** What a turn asks to do: who asks (null when the starter named no one), the agent and the thread. */
export interface TurnRequest {
  /** Who starts the turn, as the starter authenticated them (an API key's principal), or null. */
  principal: string | null;
  agent: string;
  threadId: string;
}

/**
 * Decide whether a turn may run: return (or resolve) true to allow it, false to refuse it; throw to
 * refuse with an error of your own. A thrown TransientError is retried, as in any activity.
 */
export type Authorize = (request: TurnRequest) => boolean | Promise<boolean>;

/** A turn that the authorization hook refused: the caller's fault, never retried. */
export class TurnDeniedError extends CallerError {}

/** Ask `authorize` about `request`; refuse with TurnDeniedError when it answers anything but true. */
export async function checkAuthorized(authorize: Authorize | undefined, request: TurnRequest): Promise<void> {
  if (authorize === undefined) return;
  if ((await authorize(request)) === true) return;
  const who = request.principal === null ? "A starter that named no principal" : `Principal "${request.principal}"`;
  throw new TurnDeniedError(
    `${who} may not run a turn of agent "${request.agent}" on thread "${request.threadId}": the authorization hook refused it.`,
  );
}
