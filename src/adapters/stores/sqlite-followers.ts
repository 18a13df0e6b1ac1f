/**
 * SqliteFollowers: wakes the followers of a SqliteTraceStore. SQLite has no notifications, so writes
 * through any store of this process wake followers at once, and writes by other processes are seen by
 * watching the file's data_version while someone follows.
 */
import { resolve } from "node:path";
import type { Database } from "better-sqlite3";
import { ThreadChanges } from "./changes.js";

/** The followers' hubs of the stores open in this process, by file. */
const peers = new Map<string, Set<ThreadChanges>>();

/** The followers of one SqliteTraceStore. */
export class SqliteFollowers {
  /** The hub that the store's reads watch. */
  readonly changes: ThreadChanges;
  private readonly file: string | null;
  private poll: NodeJS.Timeout | null = null;
  private dataVersion = 0;

  /**
   * @param db - The store's connection.
   * @param path - The store's file, or ":memory:" (no other connection can write to it).
   * @param pollInterval - Seconds between checks for other processes' writes, while someone follows.
   */
  constructor(
    private readonly db: Database,
    path: string,
    private readonly pollInterval: number,
  ) {
    this.changes = new ThreadChanges(undefined, (count) => this.watchOthers(count > 0));
    this.file = path === ":memory:" ? null : resolve(path);
    if (this.file) peers.set(this.file, (peers.get(this.file) ?? new Set()).add(this.changes));
  }

  /** Wake the followers of a thread in every store of this process on the same file. */
  changed(threadId: string): void {
    for (const changes of (this.file && peers.get(this.file)) || [this.changes]) changes.notify(threadId);
  }

  /** Stop watching, and end the followers. Call it before the connection closes. */
  close(): void {
    this.watchOthers(false);
    if (this.file) peers.get(this.file)?.delete(this.changes);
    this.changes.notifyAll();
  }

  /** data_version moves when another connection commits to the file. */
  private watchOthers(on: boolean): void {
    if (!on || !this.file || !this.db.open) {
      if (this.poll) clearInterval(this.poll);
      this.poll = null;
      return;
    }
    if (this.poll) return;
    this.dataVersion = this.db.pragma("data_version", { simple: true }) as number;
    this.poll = setInterval(() => {
      const version = this.db.pragma("data_version", { simple: true }) as number;
      if (version === this.dataVersion) return;
      this.dataVersion = version;
      this.changes.notifyAll();
    }, this.pollInterval * 1000);
    this.poll.unref();
  }
}
