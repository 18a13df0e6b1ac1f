/** Observer: a passive watcher of runs, for instance to export spans. It must never change what is recorded. */
import type { Event, Input } from "../domain/events.js";

/** The kind of a call an Observer is told of. */
export type CallKind = "model" | "tool";

/** A passive watcher of runs. Each method is optional; when one raises, the runtime logs a warning and goes on. */
export interface Observer {
  /**
   * Run the work of one HTTP request of the app inside the observer's context: what the request starts
   * inherits it, for example the caller's W3C `traceparent` as the parent of the spans.
   */
  request?<T>(headers: Readonly<Record<string, string>>, body: () => Promise<T>): Promise<T>;
  /** Take one event after the store recorded it. `agent` is null for an event recorded outside an agent. */
  event?(threadId: string, agent: string | null, event: Event): void;
  /**
   * Wrap one run of a thread; the calls of the run arrive while `body` runs. `opening` is the input that
   * opened the current turn when that turn is not over, else null. The runtime runs `body` once whatever
   * this does: when it raises or never calls `body`, the runtime logs a warning and the run goes on.
   */
  run?<T>(threadId: string, agent: string | null, opening: Input | null, body: () => Promise<T>): Promise<T>;
  /** Take the start of one model or tool call, before it runs. */
  call?(
    threadId: string,
    stream: string,
    node: string | null,
    kind: CallKind,
    name: string,
    callId: string | null,
  ): void;
  /** End what the observer still has open. */
  close?(): void | Promise<void>;
}
