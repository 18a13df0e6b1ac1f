/**
 * ThreadChanges: wakes the followers of a thread when its log changes. A store calls `notify` after each
 * append, load or delete it learns of; a follower waits on its watch and then reads what is new.
 */

/** A follower's subscription to the changes of one thread. */
export interface ThreadWatch {
  /** Wait until the thread changed since the last wait (or since the watch began), or the signal aborts. */
  wait(signal?: AbortSignal): Promise<void>;
  /** Stop watching. */
  close(): void;
}

interface Watcher {
  changed: boolean;
  wake: (() => void) | null;
}

/** The hub of one store's followers, by thread id. */
export class ThreadChanges {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private count = 0;

  /**
   * @param ready - Makes sure that changes reach the hub before a watch begins and before each wait
   *   (PostgreSQL: the LISTEN connection is up). A change it missed must reach the hub as `notifyAll`.
   * @param onCount - Told the number of watches whenever it changes (SQLite: to start or stop watching other processes).
   */
  constructor(
    private readonly ready: () => Promise<void> = () => Promise.resolve(),
    private readonly onCount: (count: number) => void = () => {},
  ) {}

  /** Begin watching a thread: every change notified from now on wakes the watch. */
  async watch(threadId: string): Promise<ThreadWatch> {
    await this.ready();
    const watcher: Watcher = { changed: false, wake: null };
    const set = this.watchers.get(threadId) ?? new Set();
    set.add(watcher);
    this.watchers.set(threadId, set);
    this.onCount(++this.count);
    let closed = false;
    return {
      wait: async (signal) => {
        await this.ready();
        if (watcher.changed || signal?.aborted) {
          watcher.changed = false;
          return;
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            signal?.removeEventListener("abort", done);
            watcher.wake = null;
            watcher.changed = false;
            resolve();
          };
          watcher.wake = done;
          signal?.addEventListener("abort", done, { once: true });
        });
      },
      close: () => {
        if (closed) return;
        closed = true;
        set.delete(watcher);
        if (set.size === 0 && this.watchers.get(threadId) === set) this.watchers.delete(threadId);
        this.onCount(--this.count);
      },
    };
  }

  /** Wake the watches of one thread. */
  notify(threadId: string): void {
    for (const watcher of this.watchers.get(threadId) ?? []) wakeUp(watcher);
  }

  /** Wake every watch: a change may have been missed, or the store closes. */
  notifyAll(): void {
    for (const set of this.watchers.values()) for (const watcher of set) wakeUp(watcher);
  }
}

function wakeUp(watcher: Watcher): void {
  watcher.changed = true;
  watcher.wake?.();
}
