/** PostgresListener: the one connection of a PostgresTraceStore that LISTENs on the store's channel. */
import { Client, type ClientConfig, type Notification } from "pg";
import { postgresFailure } from "./postgres-connection.js";

/** The LISTEN connection of one store: connected on first use, and again after it drops. */
export class PostgresListener {
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;

  /**
   * @param config - How to connect (the store's pool's settings).
   * @param channel - The channel to LISTEN on.
   * @param onNotify - Called with each notification's payload (a thread id).
   * @param onReset - Called when notifications may have been missed: the connection dropped (so that waiters
   *   read again and reconnect), and again once a new connection LISTENs (a change made while none did is unheard).
   */
  constructor(
    private readonly config: ClientConfig,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly onReset: () => void,
    private readonly schema: string,
  ) {}

  /** Resolve once the connection LISTENs; connect it if it is not. */
  ready(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** End the connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client(this.config);
    client.on("notification", (notification: Notification) => {
      if (notification.channel === this.channel && notification.payload !== undefined)
        this.onNotify(notification.payload);
    });
    // A dropped connection is found again on the next wait; until then followers read once more.
    client.on("error", () => this.drop(client));
    client.on("end", () => this.drop(client));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw postgresFailure(error, this.schema);
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    // A follower that woke of the drop may have read before a change it was never told of: it reads again.
    this.onReset();
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.onReset();
  }
}
