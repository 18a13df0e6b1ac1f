/**
 * The read and readBackwards of the three stores, written once over pages that each store fetches.
 * A reader pins the thread it began with: when the thread is deleted or loaded, its key changes and the read ends.
 */
import type { LogEntry, StoredEvent } from "../../domain/events.js";
import type { ReadOptions } from "../../ports/store.js";
import type { ThreadChanges } from "./changes.js";
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
  // Watch before the first fetch, so that no append between the fetch and the wait goes unnoticed.
  const watch = follow ? await changes.watch(threadId) : null;
  try {
    let pinned: string | null = null;
    for (;;) {
      if (pages.isClosed() || signal?.aborted) return;
      const page = await pages.forward(threadId, after, FORWARD_PAGE);
      if (pinned === null) pinned = page.key;
      else if (page.key !== pinned) return;
      for (const entry of page.entries) {
        yield entry;
        after = entry.position;
      }
      if (page.entries.length === FORWARD_PAGE) continue;
      if (!watch) return;
      await watch.wait(signal);
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
