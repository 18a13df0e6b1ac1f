/**
 * LiveChannel: the port that carries a model's fragments from the worker that calls the model to the
 * clients that follow the thread, while the model writes. It records nothing: the ModelOutput event is the truth.
 */

/** One piece of a model's output while it arrives, as a follower of the thread gets it. */
export interface LiveFragment {
  threadId: string;
  stream: string;
  /** The node of the model call. */
  node: string;
  /** The model call's pass key (the stream's length when the call was planned): its ModelOutput follows at or after it. */
  key: string;
  /**
   * The attempt of the call, from 1. A retried call writes its text again under a higher attempt: a
   * client drops the text of a lower attempt of the same key.
   */
  attempt: number;
  /** The fragment's place among the attempt's fragments, from 0. */
  index: number;
  kind: "text" | "reasoning";
  text: string;
}

/** Takes the fragments of one thread. */
export type LiveListener = (fragment: LiveFragment) => void;

/**
 * A channel of fragments between processes or within one. Fragments of one publisher reach a listener in
 * the order they were published; a listener that subscribes late misses earlier ones (they are not kept).
 */
export interface LiveChannel {
  /** Publish one fragment; resolves once it is on its way to every listener. A failure is the publisher's to log. */
  publish(fragment: LiveFragment): Promise<void>;
  /** Listen to a thread's fragments; resolves, once listening, to the function that stops it. */
  subscribe(threadId: string, listener: LiveListener): Promise<() => void>;
  /** Resolves once every fragment published (and resolved) before the call has reached this channel's listeners. */
  sync(): Promise<void>;
  /** Release the channel's connections; listeners stop. */
  close(): Promise<void>;
}
