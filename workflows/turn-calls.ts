/**
 * The activities a turn calls and their options, from the turn's settings: the control activities short (store
 * only), the model and tool calls heartbeating. Shared by the loop, the person in the loop and both workflows.
 */
import {
  ActivityCancellationType,
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type ActivityOptions,
  type LocalActivityInterfaceFor,
} from "@temporalio/workflow";
import { MAX_INPUT_BYTES, type TurnActivities, type TurnSettings } from "../src/temporal/contract.js";

/** The settings a turn runs with when its argument leaves them out. */
export const DEFAULT_SETTINGS: Required<TurnSettings> = {
  heartbeatSeconds: 15,
  callSeconds: 600,
  controlSeconds: 30,
  attempts: 10,
  maxInputBytes: MAX_INPUT_BYTES,
  idsOnly: false,
  unknownAgentSeconds: 60,
};

/** The activities with the options of the control activities, and the options of the model and tool calls. */
export interface TurnCalls {
  activities: ActivityInterfaceFor<TurnActivities>;
  /** The same activities run as local activities, for short store-only work (opening the turn). */
  local: LocalActivityInterfaceFor<TurnActivities>;
  control: ActivityOptions;
  units: ActivityOptions;
  settings: Required<TurnSettings>;
}

/** The activities of a turn: the control activities short (store only), the calls heartbeating. */
export function turnCalls(settings: Required<TurnSettings>): TurnCalls {
  const retry = {
    initialInterval: "1s",
    backoffCoefficient: 2,
    maximumInterval: "60s",
    maximumAttempts: settings.attempts,
  };
  const control: ActivityOptions = { startToCloseTimeout: settings.controlSeconds * 1000, retry };
  // A cancelled turn waits until its calls stopped (they learn it through their heartbeats), then records it.
  const units: ActivityOptions = {
    startToCloseTimeout: settings.callSeconds * 1000,
    heartbeatTimeout: settings.heartbeatSeconds * 1000,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry,
  };
  return {
    activities: proxyActivities<TurnActivities>(control),
    local: proxyLocalActivities<TurnActivities>(control),
    control,
    units,
    settings,
  };
}
