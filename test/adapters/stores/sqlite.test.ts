/** SqliteTraceStore against the TraceStore conformance suite, and what only SQLite has: files, WAL, other processes. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteTraceStore } from "../../../src/adapters/index.js";
import type { TraceStore } from "../../../src/ports/store.js";
import { traceStoreConformance } from "./conformance/index.js";
import { collect, events, Follower, threadId, within } from "./conformance/support.js";

const folder = mkdtempSync(join(tmpdir(), "soev-sqlite-store-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;

/** A new file, a store on it, and more stores (connections) on the same file. */
function openFile(): { path: string; store: SqliteTraceStore; other(): Promise<TraceStore>; close(): Promise<void> } {
  const path = join(folder, `store-${++files}.db`);
  const stores = [new SqliteTraceStore(path)];
  return {
    path,
    store: stores[0]!,
    other: async () => {
      stores.push(new SqliteTraceStore(path));
      return stores.at(-1)!;
    },
    close: async () => {
      for (const store of stores) await store.close();
    },
  };
}

traceStoreConformance("SqliteTraceStore", async () => openFile());

describe("SqliteTraceStore", () => {
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
