/**
 * Where a turn's time went, from its history's event times: in workflow tasks (a local activity runs inside
 * one), in activities, and waiting for a worker to take either; what the history does not cover is the
 * starter's own (the start call before the first event, the result's long poll after the last).
 */
import type proto from "@temporalio/proto";

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** Milliseconds of a turn by phase, summed over its workflow tasks and activities. */
export interface TurnPhases {
  /** From the first event to the last. */
  history: number;
  /** Workflow tasks, started to completed. */
  workflowTasks: number;
  /** Workflow tasks, scheduled to started: the wait for a worker to take each. */
  workflowTaskWaits: number;
  /** Activities, started to completed. */
  activities: number;
  /** Activities, scheduled to started. */
  activityWaits: number;
}

const millisecondsOf = (time: HistoryEvent["eventTime"]) =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/** The phases of a turn's history. */
export function phasesOf(events: readonly HistoryEvent[]): TurnPhases {
  const timeOf = new Map(events.map((event) => [Number(event.eventId), millisecondsOf(event.eventTime)]));
  const since = (event: HistoryEvent, earlier: unknown) =>
    millisecondsOf(event.eventTime) - timeOf.get(Number(earlier))!;
  const phases = { workflowTasks: 0, workflowTaskWaits: 0, activities: 0, activityWaits: 0 };
  for (const event of events) {
    if (event.workflowTaskStartedEventAttributes)
      phases.workflowTaskWaits += since(event, event.workflowTaskStartedEventAttributes.scheduledEventId);
    else if (event.workflowTaskCompletedEventAttributes)
      phases.workflowTasks += since(event, event.workflowTaskCompletedEventAttributes.startedEventId);
    else if (event.activityTaskStartedEventAttributes)
      phases.activityWaits += since(event, event.activityTaskStartedEventAttributes.scheduledEventId);
    else if (event.activityTaskCompletedEventAttributes)
      phases.activities += since(event, event.activityTaskCompletedEventAttributes.startedEventId);
  }
  const history = events.length ? millisecondsOf(events.at(-1)!.eventTime) - millisecondsOf(events[0]!.eventTime) : 0;
  return { history, ...phases };
}
