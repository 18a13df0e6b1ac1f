/**
 * The floor's activities: the kinds a soev-agents turn runs (openTurn, callModel, callTool), each doing
 * nothing, so what a turn of the floor costs is Temporal's alone.
 */

/** What a floor activity returns: a small constant, at once. */
export const NOTHING = "ok";

/** The floor's activities, as its workflow calls them. */
export interface FloorActivities {
  openTurn(): Promise<string>;
  callModel(): Promise<string>;
  callTool(): Promise<string>;
}

/** The activities: each returns NOTHING. */
export function floorActivities(): FloorActivities {
  const nothing = () => Promise.resolve(NOTHING);
  return { openTurn: nothing, callModel: nothing, callTool: nothing };
}
