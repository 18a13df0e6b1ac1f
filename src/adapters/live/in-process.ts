/** InProcessLiveChannel: fragments within one process, for an app and a worker that share it (the embedded default). */
import type { LiveChannel, LiveFragment, LiveListener } from "../../ports/live.js";

/** The live channel of one process: a publish reaches every listener before it resolves. */
export class InProcessLiveChannel implements LiveChannel {
  private readonly listeners = new Map<string, Set<LiveListener>>();

  /** Hand the fragment to the thread's listeners now; a listener that raises is skipped. */
  publish(fragment: LiveFragment): Promise<void> {
    for (const listener of this.listeners.get(fragment.threadId) ?? []) {
      try {
        listener(fragment);
      } catch {
        // A follower's failure is its own: the model call goes on.
      }
    }
    return Promise.resolve();
  }

  subscribe(threadId: string, listener: LiveListener): Promise<() => void> {
    const set = this.listeners.get(threadId) ?? new Set();
    set.add(listener);
    this.listeners.set(threadId, set);
    return Promise.resolve(() => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(threadId) === set) this.listeners.delete(threadId);
    });
  }

  /** Publishing is synchronous here: everything published has arrived. */
  sync(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
