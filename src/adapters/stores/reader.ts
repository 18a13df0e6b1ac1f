/**
 * The read and readBackwards of the three stores, written once over pages that each store fetches.
 * A reader pins the thread it began with: when the thread is deleted or loaded, its key changes and the read ends.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LogEntry, StoredEvent } from "../../domain/events.js";
import { TransientError } from "../../ports/errors.js";
import type { ReadOptions } from "../../ports/store.js";
import type { ThreadChanges, ThreadWatch } from "./changes.js";
import { checkCount, checkThreadId } from "./validation.js";

/** A page of a thread's log, with the key of the thread as it is now (null when the store holds no such thread). */
export interface Page {
  key: string | null;
  entries: LogEntry<StoredEvent>[];
}

/** How a store fetches pages of a thread's log. */
export interface LogPages {
  /** The entries past `after`, oldest first, at most `limit`. */
  forward(threadId: string, after: number, limit: number): Promise<Page>;
  /** The entries before `before` (all when null), newest first, at most `limit`. */
  backward(threadId: string, before: number | null, limit: number): Promise<Page>;
  /** Throws StoreClosedError once the store is closed. */
  checkOpen(): void;
  /** Whether the store is closed: a follower then ends. */
  isClosed(): boolean;
}

/** Rows a forward read fetches at a time. */
const FORWARD_PAGE = 500;
/** Rows a backward read fetches first, doubling up to BACKWARD_PAGE_MAX: readers of the end want few. */
const BACKWARD_PAGE = 32;
const BACKWARD_PAGE_MAX = 1024;
/** The first and the longest pause of a follower whose store failed for a while, in milliseconds. */
const FOLLOW_PAUSE = 100;
const FOLLOW_PAUSE_MAX = 5_000;

/** TraceStore.read over a store's pages and its followers' hub. */
export async function* readLog(
  pages: LogPages,
  changes: ThreadChanges,
  threadId: string,
  options: ReadOptions = {},
): AsyncGenerator<LogEntry<StoredEvent>, void, undefined> {
  pages.checkOpen();
  checkThreadId(threadId);
  let after = options.after ?? 0;
  checkCount("after", after);
  const { follow = false, signal } = options;
  // A follower outlives a store that fails for a while (a connection dropped, the server restarting):
  // it pauses, then reads again after the last entry it yielded. Only a plain read reports the failure.
  let pause = FOLLOW_PAUSE;
  const recover = async (error: unknown): Promise<void> => {
    if (!follow || !TransientError.isInstance(error)) throw error;
    await sleep(pause, undefined, { signal }).catch(() => undefined);
    pause = Math.min(pause * 2, FOLLOW_PAUSE_MAX);
  };
  // Watch before the first fetch, so that no append between the fetch and the wait goes unnoticed.
  let watch: ThreadWatch | null = null;
  while (follow && watch === null) {
    if (pages.isClosed() || signal?.aborted) return;
    watch = await changes.watch(threadId).catch(async (error: unknown) => {
      await recover(error);
      return null;
    });
  }
  try {
    let pinned: string | null = null;
    for (;;) {
      if (pages.isClosed() || signal?.aborted) return;
      let page: Page;
      try {
        page = await pages.forward(threadId, after, FORWARD_PAGE);
      } catch (error) {
        await recover(error);
        continue;
      }
      if (pinned === null) pinned = page.key;
      else if (page.key !== pinned) return;
      for (const entry of page.entries) {
        yield entry;
        after = entry.position;
      }
      if (page.entries.length === FORWARD_PAGE) continue;
      if (!watch) return;
      try {
        await watch.wait(signal);
        pause = FOLLOW_PAUSE;
      } catch (error) {
        // The wake-up may be lost with the connection: read again before waiting again.
        await recover(error);
      }
    }
  } finally {
    watch?.close();
  }
}

/** TraceStore.readBackwards: pages from the end, each fetched only when the reader asks for more. */
export async function* readLogBackwards(
  pages: LogPages,
  threadId: string,
): AsyncGenerator<LogEntry<StoredEvent>, void, undefined> {
  pages.checkOpen();
  checkThreadId(threadId);
  let before: number | null = null;
  let pinned: string | null = null;
  let size = BACKWARD_PAGE;
  for (;;) {
    const page = await pages.backward(threadId, before, size);
    if (page.key === null || (pinned !== null && page.key !== pinned)) return;
    pinned = page.key;
    for (const entry of page.entries) {
      yield entry;
      before = entry.position;
    }
    if (page.entries.length < size || before === 1) return;
    size = Math.min(size * 2, BACKWARD_PAGE_MAX);
  }
}
