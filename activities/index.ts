/**
 * The activities of the turn workflow, created from a catalog (its store, agents and version) and an
 * observer. Each reads the thread and runs through the runtime's code: the same steps, pendingNode and
 * runWork as the local runner.
 */
import type { LiveChannel } from "../src/ports/live.js";
import type { Observer } from "../src/ports/observer.js";
import type { AgentCatalog } from "../src/runtime/catalog.js";
import type { RerunActivities, TurnActivities } from "../src/temporal/contract.js";
import { callUnit } from "./call-unit.js";
import { closeTurn } from "./close-turn.js";
import { failTurn } from "./fail-turn.js";
import { nextWork } from "./next-work.js";
import { openTurn } from "./open-turn.js";
import { expireRequest, recordAnswer } from "./requests.js";
import { recordedInputs } from "./rerun.js";
import { handBackTask, handOffTask } from "./task-parts.js";
import type { Authorize } from "../src/temporal/authorize.js";
import type { TurnAccess } from "./turn-access.js";

/** What the activities run with. */
export interface ActivitiesOptions {
  /** The agents, the store and the code version. */
  catalog: AgentCatalog;
  /** Watches the model and tool calls and the recorded events. Default: the catalog's observer. */
  observer?: Observer;
  /** Decides whether a turn may open, before its thread is read or written. Default: every turn may. */
  authorize?: Authorize;
  /** The live channel that model calls stream their fragments onto; none: the model calls do not stream. */
  live?: LiveChannel;
}

/** The activities a worker registers for the turn workflow and the re-run workflow. */
export function createActivities(options: ActivitiesOptions): TurnActivities & RerunActivities {
  const access: TurnAccess = {
    catalog: options.catalog,
    observer: options.observer ?? options.catalog.observer,
    authorize: options.authorize,
    ...(options.live ? { live: options.live } : {}),
  };
  return {
    openTurn: (argument) => openTurn(access, argument),
    nextWork: (argument) => nextWork(access, argument),
    callModel: (argument) => callUnit(access, argument, "model"),
    callTool: (argument) => callUnit(access, argument, "tool"),
    runStep: (argument) => callUnit(access, argument, "step"),
    handOff: (argument) => handOffTask(access, argument),
    handBack: (argument) => handBackTask(access, argument),
    recordAnswer: (argument) => recordAnswer(access, argument),
    expireRequest: (argument) => expireRequest(access, argument),
    failTurn: (argument) => failTurn(access, argument),
    closeTurn: (argument) => closeTurn(access, argument),
    recordedInputs: (argument) => recordedInputs(access, argument),
  };
}

export { activityFailure } from "./failures.js";
export { LEASE_SECONDS } from "../src/runtime/catalog.js";
