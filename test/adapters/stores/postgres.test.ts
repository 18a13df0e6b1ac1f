/** PostgresTraceStore against the TraceStore conformance suite, and what only PostgreSQL has: migration, LISTEN. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresTraceStore, migratePostgres } from "../../../src/adapters/index.js";
import { migratePostgresTo } from "../../../src/adapters/stores/postgres-schema.js";
import { CallerError, ValueError } from "../../../src/domain/errors.js";
import type { StoredEvent } from "../../../src/domain/events.js";
import { StreamMovedError } from "../../../src/ports/errors.js";
import { freshSchema, type TestSchema } from "../../support/postgres.js";
import { traceStoreConformance } from "./conformance/index.js";
import { collect, events, Follower, threadId, type StoreFixture } from "./conformance/support.js";

const LEGACY = new URL("../../fixtures/stored-format/main-6ae8561.sqlite", import.meta.url);
const REFERENCE = new URL("../../fixtures/reference/events.json", import.meta.url);

/** A fresh schema with the store's tables, a store on it, and more stores each with a pool of its own. */
async function openSchema(): Promise<StoreFixture & { schema: TestSchema; store: PostgresTraceStore }> {
  const schema = await freshSchema("trace");
  await migratePostgres(schema.pool, { schema: schema.name });
  const open = () => new PostgresTraceStore({ connectionString: schema.url, schema: schema.name });
  const stores = [open()];
  return {
    schema,
    store: stores[0]!,
    other: async () => {
      stores.push(open());
      return stores.at(-1)!;
    },
    close: async () => {
      for (const store of stores) await store.close();
      await schema.drop();
    },
    // Leases expire on the server's clock: time has to pass for real.
    pass: (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
  };
}

traceStoreConformance("PostgresTraceStore", openSchema);

describe("PostgresTraceStore", () => {
  // Each test makes its schema itself, so that an unreachable server fails every test rather than skipping some.
  let schema: TestSchema | undefined;
  afterEach(async () => {
    await schema?.drop();
    schema = undefined;
  });

  it("migrates idempotently, also when several processes migrate at once", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await Promise.all([1, 2, 3].map(() => migratePostgres(pool, { schema: name })));
    await migratePostgres(pool, { schema: name });
    const { rows } = await pool.query(`SELECT version FROM "${name}".trace_migrations ORDER BY version`);
    expect(rows).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((version) => ({ version })));
  });

  it("upgrades a schema of version 4: its threads read, append on gapless in each stream, and delete with their events", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await migratePostgresTo(pool, name, 4);
    // A thread as version 4 wrote it, through its trace_append (the thread's length kept in its row).
    const thread = threadId();
    const payloads = [{ i: 0 }, { i: 1 }, { i: 2 }].map((payload) => JSON.stringify(payload));
    await pool.query(
      `SELECT "${name}".trace_append($1, $2, $3, NULL, NULL, '{main,side}', '{}', '{}', '{note,note,note}', ` +
        "'{main,side,main}', '{system,system,system}', '{NULL,NULL,NULL}', $4, '{NULL,NULL,NULL}', $5, '{NULL,NULL,NULL}')",
      [thread, `${name}:${thread}`, `soev_trace_${name}`, payloads, "2024-03-01T10:00:00.000Z"],
    );
    await migratePostgres(pool, { schema: name });
    const store = new PostgresTraceStore({ pool, schema: name });
    const before = await collect(store.read(thread));
    expect(before.map((entry) => [entry.position, entry.event.stream, entry.event.seq])).toEqual([
      [1, "main", 0],
      [2, "side", 0],
      [3, "main", 1],
    ]);
    await appendsAfterOldEvents(store, thread);
    await store.delete(thread);
    const { rows } = await pool.query(`SELECT count(*)::int AS count FROM "${name}".trace_events`);
    expect(rows[0].count).toBe(0);
    await store.close();
  });

  it("upgrades a schema of version 5: its threads read, and append after their events with the events as JSON", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await migratePostgresTo(pool, name, 5);
    // A thread as version 5 wrote it, through its trace_append (the events as arrays of columns).
    const thread = threadId();
    const payloads = [{ i: 0 }, { i: 1, text: 'quote " and \\ and é' }, { i: 2 }].map((payload) =>
      JSON.stringify(payload),
    );
    await pool.query(
      `SELECT "${name}".trace_append($1, NULL, NULL, '{main,side}', '{}', '{}', '{note,note,note}', '{main,side,main}', ` +
        "'{0,0,1}', '{system,system,system}', '{NULL,NULL,NULL}', $2, '{NULL,NULL,NULL}', '{NULL,NULL,NULL}', $3)",
      [thread, payloads, "2024-03-01T10:00:00.000Z"],
    );
    await migratePostgres(pool, { schema: name });
    const store = new PostgresTraceStore({ pool, schema: name });
    const before = await collect(store.read(thread));
    expect(before.map((entry) => [entry.position, entry.event.stream, entry.event.seq, entry.event.payload])).toEqual([
      [1, "main", 0, { i: 0 }],
      [2, "side", 0, { i: 1, text: 'quote " and \\ and é' }],
      [3, "main", 1, { i: 2 }],
    ]);
    await appendsAfterOldEvents(store, thread);
    await store.close();
  });

  it("upgrades a schema of version 6: its threads read, and append after their events in each stream", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await migratePostgresTo(pool, name, 6);
    // A thread as version 6 wrote it, through its trace_append (the events as two JSON arrays, the lengths as an object).
    const thread = threadId();
    const headers = [
      { place: 0, type: "note", stream: "main", actor: "system", origin: null, version: null, checked: null },
      { place: 0, type: "note", stream: "side", actor: "system", origin: null, version: null, checked: null },
      { place: 1, type: "note", stream: "main", actor: "system", origin: null, version: null, checked: null },
    ];
    await pool.query(`SELECT "${name}".trace_append($1, NULL, NULL, '{main,side}', '{}', '{}', $2, $3, 3, $4)`, [
      thread,
      JSON.stringify(headers),
      JSON.stringify([{ i: 0 }, { i: 1 }, { i: 2 }]),
      "2024-03-01T10:00:00.000Z",
    ]);
    await migratePostgres(pool, { schema: name });
    const store = new PostgresTraceStore({ pool, schema: name });
    const before = await collect(store.read(thread));
    expect(before.map((entry) => [entry.position, entry.event.stream, entry.event.seq, entry.event.payload])).toEqual([
      [1, "main", 0, { i: 0 }],
      [2, "side", 0, { i: 1 }],
      [3, "main", 1, { i: 2 }],
    ]);
    await appendsAfterOldEvents(store, thread);
    await store.close();
  });

  it("upgrades a schema of version 10: events of the earlier format are rewritten in the reference's (migration 11)", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await migratePostgresTo(pool, name, 10);
    // The rows of a SQLite file that main wrote in the earlier format, loaded as they are.
    const legacy = new BetterSqlite3(fileURLToPath(LEGACY), { readonly: true });
    const rows = legacy.prepare("SELECT * FROM trace_events ORDER BY position").all() as Record<string, unknown>[];
    legacy.close();
    const old = rows.map((row) => ({ ...row, payload: JSON.parse(row.payload as string), checked: undefined }));
    const store = new PostgresTraceStore({ pool, schema: name });
    await store.load("legacy-thread", old as unknown as StoredEvent[]);
    expect((await collect(store.read("legacy-thread")))[1]!.event.type).toBe("model-output");
    await migratePostgres(pool, { schema: name });
    const upgraded = (await collect(store.read("legacy-thread"))).map((entry) => entry.event);
    const reference = JSON.parse(readFileSync(REFERENCE, "utf8")) as StoredEvent[];
    expect(upgraded.map((event) => [event.type, event.payload])).toEqual(
      reference.map((event) => [event.type, event.payload]),
    );
    await store.close();
  });

  it("numbers the seqs of a batch that interleaves streams as it stores them", async () => {
    const fixture = await openSchema();
    const thread = threadId();
    await fixture.store.append(thread, events(1, 0, "side"));
    const batch = [...events(1, 1), ...events(2, 2, "side"), ...events(1, 4), ...events(1, 5, "other")];
    const appended = await fixture.store.append(thread, batch, { expected: { main: 0, side: 1 } });
    expect(appended.map((event) => [event.stream, event.seq])).toEqual([
      ["main", 0],
      ["side", 1],
      ["side", 2],
      ["main", 1],
      ["other", 0],
    ]);
    expect((await collect(fixture.store.read(thread))).slice(1).map((entry) => entry.event)).toEqual(appended);
    await fixture.close();
  });

  it("uses a pool it is given without ending it on close", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    await migratePostgres(pool, { schema: name });
    const store = new PostgresTraceStore({ pool, schema: name });
    const thread = threadId();
    await store.append(thread, events(2));
    await store.close();
    const { rows } = await pool.query(`SELECT count(*)::int AS count FROM "${name}".trace_events`);
    expect(rows[0].count).toBe(2);
  });

  it("tells the caller to run migratePostgres when the schema has no tables", async () => {
    const { pool, name } = (schema = await freshSchema("trace"));
    const store = new PostgresTraceStore({ pool, schema: name });
    const failure = store.append(threadId(), events(1));
    await expect(failure).rejects.toBeInstanceOf(CallerError);
    await expect(store.append(threadId(), events(1))).rejects.toThrow(/migratePostgres/);
    await store.close();
  });

  it("refuses a schema name that is not a plain identifier, and options without exactly one connection", async () => {
    const { pool } = (schema = await freshSchema("trace"));
    expect(() => new PostgresTraceStore({ pool, schema: 'x"; DROP TABLE y; --' })).toThrow(ValueError);
    expect(() => new PostgresTraceStore({ schema: "x" })).toThrow(/exactly one/);
  });

  it("keeps following after its LISTEN connection is cut: nothing is missed", async () => {
    const fixture = await openSchema();
    const thread = threadId();
    await fixture.store.append(thread, events(1));
    const follower = new Follower(fixture.store, thread);
    await follower.saw(1);
    const cut = await fixture.schema.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1",
      [`LISTEN "soev_trace_${fixture.schema.name}"`],
    );
    expect(cut.rowCount).toBe(1);
    const other = await fixture.other();
    await other.append(thread, events(2, 1));
    await follower.saw(3);
    await other.append(thread, events(1, 3));
    await follower.saw(4);
    await follower.stop();
    expect(follower.positions).toEqual([1, 2, 3, 4]);
    expect(await collect(other.read(thread))).toEqual(follower.entries);
    await fixture.close();
  });
});

/**
 * Append to a thread an older version wrote (2 events on "main", 1 on "side"): a stale `expected` is refused,
 * and a batch lands after the old events with its seqs counted from theirs.
 */
async function appendsAfterOldEvents(store: PostgresTraceStore, thread: string): Promise<void> {
  await expect(store.append(thread, events(1, 3), { expected: { main: 1 } })).rejects.toBeInstanceOf(StreamMovedError);
  const appended = await store.append(thread, [...events(1, 3, "side"), ...events(2, 4)], { expected: { main: 2 } });
  expect(appended.map((event) => [event.stream, event.seq])).toEqual([
    ["side", 1],
    ["main", 2],
    ["main", 3],
  ]);
  const after = await collect(store.read(thread));
  expect(after.map((entry) => entry.position)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(after.slice(3).map((entry) => entry.event)).toEqual(appended);
}
