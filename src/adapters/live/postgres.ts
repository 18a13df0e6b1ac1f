/**
 * PostgresLiveChannel: fragments between processes through PostgreSQL LISTEN/NOTIFY, for an app and a
 * worker that run apart. A notification carries at most ~8000 bytes: a long fragment goes in parts.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { ValueError } from "../../domain/errors.js";
import type { LiveChannel, LiveFragment, LiveListener } from "../../ports/live.js";

/** The channel a PostgresLiveChannel notifies on unless told otherwise. */
export const LIVE_CHANNEL = "soev_live";

/** The most characters of text in one notification: JSON escapes at most six bytes per character, under the 8000-byte limit. */
const PART_CHARACTERS = 1000;
/** The most notifications in one statement: a batch stays well under a megabyte. */
const BATCH_PAYLOADS = 100;

/** The settings of a PostgresLiveChannel. */
export interface PostgresLiveChannelOptions {
  /** The PostgreSQL server, as a connection string. */
  connectionString: string;
  /** The NOTIFY channel; default "soev_live". Apps that share a server but not their threads may each take one. */
  channel?: string;
}

type Waiter = { token: string; resolve: () => void };
/** One notification to send; `last` resolves its fragment's publish once it is sent. */
type Outgoing = { payload: string; last: boolean; resolve: () => void; reject: (error: unknown) => void };

/**
 * A live channel on PostgreSQL. It publishes on one connection, one statement after the other, each
 * notifying in order what waited for it, so a publisher's fragments arrive in order; it listens on another,
 * connected at the first subscribe.
 */
export class PostgresLiveChannel implements LiveChannel {
  readonly channel: string;
  private readonly connectionString: string;
  private publisher: Promise<pg.Client> | null = null;
  private listener: Promise<pg.Client> | null = null;
  /** Notifications waiting for the publisher, in the order published. */
  private readonly pending: Outgoing[] = [];
  private sending = false;
  private readonly listeners = new Map<string, Set<LiveListener>>();
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(options: PostgresLiveChannelOptions) {
    if (!options || typeof options.connectionString !== "string" || options.connectionString === "")
      throw new ValueError("PostgresLiveChannel needs `connectionString`, the PostgreSQL server to notify through.");
    this.connectionString = options.connectionString;
    this.channel = options.channel ?? LIVE_CHANNEL;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.channel))
      throw new ValueError(
        `The live channel "${this.channel}" is no plain PostgreSQL name: use lower-case letters, digits and _.`,
      );
  }

  /**
   * Notify the fragment, in parts of at most PART_CHARACTERS characters; resolves once notified. Fragments
   * published while a notify is on its way go together in the next statement (one round trip, one commit).
   */
  publish(fragment: LiveFragment): Promise<void> {
    const payloads = partsOf(fragment.text).map((text) => JSON.stringify({ ...fragment, text }));
    return new Promise((resolve, reject) => {
      payloads.forEach((payload, index) =>
        this.pending.push({ payload, last: index === payloads.length - 1, resolve, reject }),
      );
      if (!this.sending) void this.send();
    });
  }

  async subscribe(threadId: string, listener: LiveListener): Promise<() => void> {
    await this.connected("listener");
    const set = this.listeners.get(threadId) ?? new Set();
    set.add(listener);
    this.listeners.set(threadId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(threadId) === set) this.listeners.delete(threadId);
    };
  }

  /**
   * Notify a token of our own and wait until the listening connection receives it: PostgreSQL delivers
   * notifications in the order they committed, so every fragment notified before has arrived by then.
   */
  async sync(): Promise<void> {
    const client = await this.connected("listener");
    const token = randomUUID();
    const arrived = new Promise<void>((resolve) => this.waiters.add({ token, resolve }));
    await client.query("SELECT pg_notify($1, $2)", [this.channel, JSON.stringify({ sync: token })]);
    await arrived;
  }

  /**
   * Notify what is pending, a batch a statement, until nothing is: with many streams at once, a round trip
   * per fragment queues each behind all the others', a round trip per batch does not.
   */
  private async send(): Promise<void> {
    this.sending = true;
    while (this.pending.length > 0) {
      const batch = nextBatch(this.pending);
      try {
        const client = await this.connected("publisher");
        const calls = batch.map((_, index) => `pg_notify($1, $${index + 2})`).join(", ");
        await client.query(`SELECT ${calls}`, [this.channel, ...batch.map((outgoing) => outgoing.payload)]);
        for (const outgoing of batch) if (outgoing.last) outgoing.resolve();
      } catch (error) {
        // A fragment with a part lost is lost: its publish fails (a later part's resolve changes nothing).
        for (const outgoing of batch) outgoing.reject(error);
      }
    }
    this.sending = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters.clear();
    const clients = [this.publisher, this.listener];
    this.publisher = this.listener = null;
    await Promise.all(clients.map(async (client) => (await client?.catch(() => null))?.end().catch(() => {})));
  }

  private connected(role: "publisher" | "listener"): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new ValueError("The live channel is closed."));
    const existing = role === "publisher" ? this.publisher : this.listener;
    if (existing) return existing;
    // A connection that failed or dropped is made again at the next use.
    const connecting: Promise<pg.Client> = this.connect(role, () => this.forget(role, connecting));
    if (role === "publisher") this.publisher = connecting;
    else this.listener = connecting;
    connecting.catch(() => this.forget(role, connecting));
    return connecting;
  }

  private async connect(role: "publisher" | "listener", lost: () => void): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("error", lost);
    client.on("end", lost);
    await client.connect();
    if (role === "listener") {
      client.on("notification", (notification) => this.deliver(notification.payload));
      await client.query(`LISTEN "${this.channel}"`);
    }
    return client;
  }

  private forget(role: "publisher" | "listener", connecting: Promise<pg.Client>): void {
    if (role === "publisher" && this.publisher === connecting) this.publisher = null;
    if (role === "listener" && this.listener === connecting) this.listener = null;
  }

  private deliver(payload: string | undefined): void {
    if (payload === undefined) return;
    let message: (LiveFragment & { sync?: undefined }) | { sync: string };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (typeof message.sync === "string") {
      for (const waiter of this.waiters) {
        if (waiter.token !== message.sync) continue;
        this.waiters.delete(waiter);
        waiter.resolve();
      }
      return;
    }
    const fragment = message as LiveFragment;
    for (const listener of this.listeners.get(fragment.threadId) ?? []) {
      try {
        listener(fragment);
      } catch {
        // A follower's failure is its own.
      }
    }
  }
}

/**
 * Take from `pending` the notifications of the next statement: at most BATCH_PAYLOADS, and no payload twice,
 * since PostgreSQL delivers identical notifications of one transaction once.
 */
function nextBatch(pending: Outgoing[]): Outgoing[] {
  const seen = new Set<string>();
  let taken = 0;
  while (taken < pending.length && taken < BATCH_PAYLOADS && !seen.has(pending[taken]!.payload))
    seen.add(pending[taken++]!.payload);
  return pending.splice(0, taken);
}

/** The text in parts of at most PART_CHARACTERS characters (whole code points); empty text is one empty part. */
function partsOf(text: string): string[] {
  const characters = Array.from(text);
  if (characters.length <= PART_CHARACTERS) return [text];
  const parts: string[] = [];
  for (let start = 0; start < characters.length; start += PART_CHARACTERS)
    parts.push(characters.slice(start, start + PART_CHARACTERS).join(""));
  return parts;
}
