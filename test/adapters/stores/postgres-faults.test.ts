// PostgreSQL faults at the store: a backend terminated while the store holds its client never ends the
// process (the failure is a TransientError, or the read runs again), a follower outlives its connections,
// and the error codes of a lost connection are transient while the others are not.
import { randomBytes } from "node:crypto";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresTraceStore } from "../../../src/adapters/stores/postgres.js";
import { ThreadChanges } from "../../../src/adapters/stores/changes.js";
import { PostgresConnection, postgresFailure } from "../../../src/adapters/stores/postgres-connection.js";
import { PostgresListener } from "../../../src/adapters/stores/postgres-listener.js";
import { migratePostgres } from "../../../src/adapters/stores/postgres-schema.js";
import { CallerError } from "../../../src/domain/errors.js";
import type { StoredEvent } from "../../../src/domain/events.js";
import { TransientError } from "../../../src/ports/errors.js";
import { freshSchema, type TestSchema } from "../../support/postgres.js";
import { event } from "./conformance/support.js";

let schema: TestSchema;
beforeAll(async () => {
  schema = await freshSchema("faults");
  await migratePostgres(schema.pool, { schema: schema.name });
});
afterAll(() => schema.drop());

/** A connection string whose backends carry `name`, so a test can terminate exactly them. */
function named(name: string): string {
  const url = new URL(schema.url);
  url.searchParams.set("application_name", name);
  return url.toString();
}

/** Terminate every backend of `name`; returns how many. */
async function terminate(name: string): Promise<number> {
  const { rows } = await schema.pool.query<{ ok: boolean }>(
    "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
    [name],
  );
  return rows.filter((row) => row.ok).length;
}

const note = (text: string): StoredEvent => event({ text });

describe("postgresFailure", () => {
  it("makes a lost connection transient, by SQLSTATE, socket code or pg's message", () => {
    for (const failure of [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("connection failure"), { code: "08006" }),
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      new Error("Connection terminated unexpectedly"),
      new Error("Client has encountered a connection error and is not queryable"),
      Object.assign(new Error("could not serialize access"), { code: "40001" }),
    ]) {
      expect(postgresFailure(failure, "s"), failure.message).toBeInstanceOf(TransientError);
    }
  });

  it("asks for migratePostgres when the tables are missing, and leaves any other error as it is", () => {
    expect(postgresFailure(Object.assign(new Error("no relation"), { code: "42P01" }), "s")).toBeInstanceOf(
      CallerError,
    );
    const unique = Object.assign(new Error("duplicate key"), { code: "23505" });
    expect(postgresFailure(unique, "s")).toBe(unique);
  });
});

describe("a backend terminated while the store holds its client", () => {
  it("between two queries of a transaction: a TransientError, nothing lands, and the process lives", async () => {
    const name = `faults-${randomBytes(4).toString("hex")}`;
    const pool = new Pool({ connectionString: named(name), max: 2 });
    pool.on("error", () => {});
    const connection = new PostgresConnection(pool, schema.name, "SELECT pg_advisory_xact_lock(hashtext($1))");
    try {
      const failure = await connection
        .write("t", async (client) => {
          await client.query("SELECT 1");
          expect(await terminate(name)).toBeGreaterThan(0);
          // The connection drops while no query runs: pg emits 'error' on the checked-out client.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await client.query("SELECT 2");
        })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TransientError);
      // The broken client was discarded: the next call gets a working one.
      expect(await connection.query(async (client) => (await client.query("SELECT 3 AS n")).rows[0])).toEqual({ n: 3 });
    } finally {
      await pool.end();
    }
  });

  // With `expected` for each stream the append is the trace_write procedure (no answer), or trace_write_one for
  // one event; without it trace_append.
  it.each([
    ["trace_append", 1, {}],
    ["trace_write", 2, { expected: { main: 0 } }],
    ["trace_write_one", 1, { expected: { main: 0 } }],
  ] as const)(
    "after an append committed (%s): a TransientError, and the append is not run again",
    async (statement, count, options) => {
      const pool = new Pool({ connectionString: schema.url, max: 2 });
      pool.on("error", () => {});
      const store = new PostgresTraceStore({ pool, schema: schema.name });
      const thread = `committed-${randomBytes(4).toString("hex")}`;
      // The first append's answer is lost after its commit, as when the connection drops before the reply. Each
      // client's query is wrapped, whether the store calls it with a callback (as pool.query does) or awaits it.
      let lost = false;
      pool.on("connect", (client) => {
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as { query: unknown }).query = (...args: unknown[]) => {
          const callback = typeof args.at(-1) === "function" ? (args.pop() as (...results: unknown[]) => void) : null;
          const lose = !lost && JSON.stringify(args[0]).includes(`.${statement}(`);
          if (lose) lost = true;
          const result = query(...args).then((value) => {
            if (lose) throw new Error("Connection terminated unexpectedly");
            return value;
          });
          if (callback === null) return result;
          result.then(
            (value) => callback(undefined, value),
            (error: unknown) => callback(error),
          );
        };
      });
      try {
        const texts = ["once", "and again"].slice(0, count);
        await expect(store.append(thread, texts.map(note), options)).rejects.toBeInstanceOf(TransientError);
        const read: string[] = [];
        for await (const entry of store.read(thread)) read.push((entry.event.payload as { text: string }).text);
        expect(read).toEqual(texts);
      } finally {
        await store.close();
        await pool.end();
      }
    },
  );

  it("during reads: a read runs again on a fresh connection", async () => {
    const name = `faults-${randomBytes(4).toString("hex")}`;
    const store = new PostgresTraceStore({ connectionString: named(name), schema: schema.name });
    try {
      await store.append("reads", [note("one"), note("two")]);
      for (let round = 0; round < 5; round++) {
        await terminate(name);
        const read: string[] = [];
        for await (const entry of store.read("reads")) read.push((entry.event.payload as { text: string }).text);
        expect(read).toEqual(["one", "two"]);
      }
    } finally {
      await store.close();
    }
  });
});

describe("a follower whose connections are terminated", () => {
  it("yields every event once, in order, until it is stopped", async () => {
    const name = `faults-${randomBytes(4).toString("hex")}`;
    const follower = new PostgresTraceStore({ connectionString: named(name), schema: schema.name });
    const writer = new PostgresTraceStore({ connectionString: schema.url, schema: schema.name });
    const stop = new AbortController();
    const seen: number[] = [];
    try {
      const following = (async () => {
        for await (const entry of follower.read("followed", { follow: true, signal: stop.signal }))
          seen.push(entry.position);
      })();
      const total = 30;
      for (let index = 0; index < total; index++) {
        await writer.append("followed", [note(`e${index}`)]);
        // Cut the follower's LISTEN connection and its pooled ones, again and again.
        if (index % 3 === 0) await terminate(name);
      }
      for (let wait = 0; wait < 200 && seen.length < total; wait++) await new Promise((r) => setTimeout(r, 100));
      stop.abort();
      await following;
      expect(seen).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    } finally {
      stop.abort();
      await follower.close();
      await writer.close();
    }
  });

  it("hears of a change made while its LISTEN connection was down, once the connection is back", async () => {
    // Wired as the store wires them. The follower wakes of the drop and reads; a change lands before it waits
    // again, while no connection LISTENs, so its NOTIFY is lost: the reconnect must wake the follower.
    const name = `listener-${randomBytes(4).toString("hex")}`;
    const channel = `soev_test_${randomBytes(4).toString("hex")}`;
    let resets = 0;
    const changes = new ThreadChanges(() => listener.ready());
    const listener = new PostgresListener(
      { connectionString: named(name) },
      channel,
      (threadId) => changes.notify(threadId),
      () => {
        resets += 1;
        changes.notifyAll();
      },
      schema.name,
    );
    const watch = await changes.watch("followed");
    try {
      const woken = watch.wait();
      expect(await terminate(name)).toBe(1);
      await woken;
      await schema.pool.query(`NOTIFY "${channel}", 'followed'`);
      const heard = await Promise.race([
        watch.wait().then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000)),
      ]);
      expect(heard).toBe(true);
      expect(resets).toBeGreaterThanOrEqual(2);
    } finally {
      watch.close();
      await listener.close();
    }
  });
});
