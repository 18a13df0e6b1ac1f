/**
 * Temporal for tests: the run's one dev server (started by test/setup/global.ts), connections to it, and
 * task queues of a test's own, so tests that run at once never take each other's tasks.
 */
import { randomBytes } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import type proto from "@temporalio/proto";
import { NativeConnection } from "@temporalio/worker";
import { inject } from "vitest";

/** host:port of the run's Temporal dev server. */
export function temporalAddress(): string {
  return inject("temporalAddress");
}

/** The namespace of the run's dev server, with the soev-agents search attributes registered. */
export function temporalNamespace(): string {
  return inject("temporalNamespace");
}

/**
 * The environment of a child process (a worker, the app, a CLI) that talks to the run's dev server on
 * `taskQueue`: this process's environment with the Temporal variables the entry points read.
 */
export function temporalEnvironment(taskQueue: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: temporalNamespace(),
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
}

/** A client of the dev server, and its connection: close the connection when the test ends. */
export interface TestClient {
  client: Client;
  connection: Connection;
  /** Close the connection. */
  close(): Promise<void>;
}

/** Connect a client to the dev server, in its namespace. */
export async function connectClient(): Promise<TestClient> {
  const connection = await Connection.connect({ address: temporalAddress() });
  const client = new Client({ connection, namespace: temporalNamespace() });
  return { client, connection, close: () => connection.close() };
}

/** A native connection to the dev server, for a Worker: close it after the worker stopped. */
export async function connectWorker(): Promise<NativeConnection> {
  return NativeConnection.connect({ address: temporalAddress() });
}

/** A task queue no other test uses: `name` and a random suffix. */
export function uniqueTaskQueue(name: string): string {
  return `${name}-${randomBytes(6).toString("hex")}`;
}

/**
 * The activity an event of a history scheduled: its type, or `local <type>` for a local activity (which
 * the history records as a marker); null for any other event.
 */
export function activityOf(event: proto.temporal.api.history.v1.IHistoryEvent): string | null {
  const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
  if (name) return name;
  const marker = event.markerRecordedEventAttributes;
  const data = marker?.markerName === "core_local_activity" ? marker.details?.data?.payloads?.[0]?.data : null;
  return data ? `local ${(JSON.parse(Buffer.from(data).toString()) as { activity_type: string }).activity_type}` : null;
}
