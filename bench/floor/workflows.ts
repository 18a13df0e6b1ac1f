/**
 * The floor: the least any integration can cost a turn on this server. It runs the activities a soev-agents
 * turn runs, of the same kinds and in the same order (workflows/turn.ts: one local activity to open the turn,
 * then per pass a model call and a tool call, then the answering model call), each returning a constant.
 */
import { proxyActivities, proxyLocalActivities } from "@temporalio/workflow";
import type { FloorActivities } from "./activities.js";

const options = { startToCloseTimeout: "1 minute" } as const;
const activities = proxyActivities<FloorActivities>(options);
const local = proxyLocalActivities<FloorActivities>(options);

/** One turn of `passes` passes: the same activities as a soev-agents turn of as many passes, doing nothing. */
export async function floorTurn(passes: number): Promise<string> {
  await local.openTurn();
  for (let pass = 0; pass < passes; pass++) {
    await activities.callModel();
    await activities.callTool();
  }
  return activities.callModel();
}
