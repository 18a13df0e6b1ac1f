/** SqliteTraceStore against the TraceStore conformance suite, and what only SQLite has: files, WAL, other processes. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteTraceStore } from "../../../src/adapters/index.js";
import { ManualClock } from "../../../src/testing/index.js";
import { traceStoreConformance } from "./conformance/index.js";
import { collect, events, Follower, threadId, within, type StoreFixture } from "./conformance/support.js";

const folder = mkdtempSync(join(tmpdir(), "soev-sqlite-store-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

/** A new file, a store on it, and more stores (connections) on the same file. */
function openFile(): StoreFixture & { path: string; store: SqliteTraceStore } {
  const path = join(folder, `store-${++files}.db`);
  const clock = new ManualClock();
  const stores = [new SqliteTraceStore(path, { clock })];
  return {
    path,
    store: stores[0]!,
    other: async () => {
      stores.push(new SqliteTraceStore(path, { clock }));
      return stores.at(-1)!;
    },
    close: async () => {
      for (const store of stores) await store.close();
    },
    pass: async (milliseconds) => clock.advance(milliseconds),
  };
}

traceStoreConformance("SqliteTraceStore", async () => openFile());

describe("SqliteTraceStore", () => {
  it("opens a file of an earlier version (no checked column): it adds the column and reads the old events unchecked", async () => {
    const path = join(folder, `store-${++files}.db`);
    const old = new BetterSqlite3(path);
    old.exec(
      "CREATE TABLE trace_threads (key INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, length INTEGER NOT NULL, first_ts TEXT NOT NULL);" +
        "CREATE TABLE trace_events (thread_key INTEGER NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL, stream TEXT NOT NULL, " +
        "actor TEXT NOT NULL, origin TEXT, payload TEXT NOT NULL, seq INTEGER NOT NULL, ts TEXT NOT NULL, version TEXT, PRIMARY KEY (thread_key, position)) WITHOUT ROWID;" +
        "INSERT INTO trace_threads (id, length, first_ts) VALUES ('old', 1, '2026-01-01T00:00:00.000Z');" +
        "INSERT INTO trace_events VALUES (1, 1, 'note', 'main', 'system', NULL, '{\"i\":0}', 0, '2026-01-01T00:00:00.000Z', NULL);",
    );
    old.close();
    const store = new SqliteTraceStore(path);
    await store.append("old", [{ ...events(1, 1)[0]!, checked: "0123456789abcdef" }]);
    const read = await collect(store.read("old"));
    expect(read.map((entry) => [entry.event.payload, entry.event.checked])).toEqual([
      [{ i: 0 }, undefined],
      [{ i: 1 }, "0123456789abcdef"],
    ]);
    await store.close();
  });

  it("keeps its file in WAL mode, and a store opened again on the file reads what was appended", async () => {
    const fixture = openFile();
    const thread = threadId();
    await fixture.store.append(thread, events(3));
    await fixture.close();
    const probe = new BetterSqlite3(fixture.path, { readonly: true });
    expect(probe.pragma("journal_mode", { simple: true })).toBe("wal");
    probe.close();
    const again = new SqliteTraceStore(fixture.path);
    expect((await collect(again.read(thread))).map((entry) => entry.event.payload.i)).toEqual([0, 1, 2]);
    await again.close();
  });

  it("creates the folder of its file when it is missing", async () => {
    const store = new SqliteTraceStore(join(folder, "data", "nested", "trace.db"));
    const thread = threadId();
    await store.append(thread, events(1));
    expect(await collect(store.read(thread))).toHaveLength(1);
    await store.close();
  });

  it('runs in memory with ":memory:"', async () => {
    const store = new SqliteTraceStore(":memory:");
    const thread = threadId();
    await store.append(thread, events(2));
    expect(await collect(store.readBackwards(thread))).toHaveLength(2);
    await store.close();
  });

  it("refuses options that are not seconds above 0", () => {
    expect(() => new SqliteTraceStore(":memory:", { pollInterval: 0 })).toThrow(/pollInterval/);
    expect(() => new SqliteTraceStore("")).toThrow(/file path/);
  });

  it("lets a follower see appends that another process makes to the file", async () => {
    const fixture = openFile();
    const thread = threadId();
    await fixture.store.append(thread, events(1));
    const follower = new Follower(fixture.store, thread);
    await follower.saw(1);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/fixtures/sqlite-append.ts", fixture.path, thread, "3"],
      { stdio: "inherit" },
    );
    const code = await within(
      new Promise<number | null>((resolve) => child.on("exit", resolve)),
      "the appending process's exit",
    );
    expect(code).toBe(0);
    await follower.saw(4);
    await follower.stop();
    expect(follower.positions).toEqual([1, 2, 3, 4]);
    await fixture.close();
  });
});
