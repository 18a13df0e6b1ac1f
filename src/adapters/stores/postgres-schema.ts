/**
 * The tables of PostgresTraceStore in one schema, made by migratePostgres, and the names derived from
 * the schema: the tables, the NOTIFY channel, the lock keys.
 */
import type { Pool, PoolClient } from "pg";
import type { JsonObject } from "../../domain/json.js";
import { upgradeStoredRow } from "../../domain/registry.js";
import { ValueError } from "../../domain/errors.js";

/** Options of migratePostgres. */
export interface MigratePostgresOptions {
  /** The schema to create the tables in; it is created when missing. Default "public". */
  schema?: string;
}

/** The SQLSTATE with which trace_write refuses an append; its detail is trace_append's answer, as JSON. */
export const REFUSED_STATE = "SOEV1";

/** The schema a store uses when its options name none. */
export const DEFAULT_SCHEMA = "public";

/** A schema name: an identifier short enough that the NOTIFY channel derived from it stays within 63 bytes. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/**
 * The trace_append function of migrations 3 and 4 (kept as they applied it): under the thread's lock it
 * checks the lease and the expected stream lengths, seals, inserts, grows the thread's length row and notifies.
 */
function appendGrowingLength(s: string): string {
  return `
    CREATE OR REPLACE FUNCTION ${s}.trace_append(
      p_thread text, p_lock text, p_channel text, p_owner text, p_counter integer,
      p_streams text[], p_expected_streams text[], p_expected_lengths integer[],
      p_types text[], p_event_streams text[], p_actors text[], p_origins text[], p_payloads text[],
      p_versions text[], p_ts text, p_checked text[]
    ) RETURNS json LANGUAGE plpgsql AS $fn$
    DECLARE
      v_key bigint;
      v_length integer;
      v_lease ${s}.trace_leases%ROWTYPE;
      v_lengths jsonb := '{}'::jsonb;
      v_seqs integer[] := '{}';
      v_seq integer;
      v_count integer := coalesce(array_length(p_types, 1), 0);
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
      IF p_owner IS NOT NULL THEN
        SELECT * INTO v_lease FROM ${s}.trace_leases WHERE thread_id = p_thread;
        IF NOT FOUND OR v_lease.owner <> p_owner OR v_lease.counter <> p_counter THEN
          RETURN json_build_object('status', 'lease', 'owner', v_lease.owner, 'counter', v_lease.counter,
            'expiresAt', v_lease.expires_at, 'released', v_lease.released);
        END IF;
      END IF;
      SELECT key, length INTO v_key, v_length FROM ${s}.trace_threads WHERE id = p_thread;
      IF v_key IS NOT NULL AND coalesce(array_length(p_streams, 1), 0) > 0 THEN
        -- Each stream's last seq from the index, newest first: the cost does not grow with the thread.
        SELECT coalesce(jsonb_object_agg(named.stream, newest.seq + 1), '{}'::jsonb) INTO v_lengths
        FROM unnest(p_streams) AS named(stream) CROSS JOIN LATERAL (
          SELECT seq FROM ${s}.trace_events
          WHERE thread_key = v_key AND stream = named.stream ORDER BY seq DESC LIMIT 1) newest;
      END IF;
      FOR i IN 1 .. coalesce(array_length(p_expected_streams, 1), 0) LOOP
        IF coalesce((v_lengths ->> p_expected_streams[i])::integer, 0) <> p_expected_lengths[i] THEN
          RETURN json_build_object('status', 'moved', 'lengths', v_lengths);
        END IF;
      END LOOP;
      IF v_count = 0 THEN
        RETURN json_build_object('status', 'appended', 'first', coalesce(v_length, 0) + 1, 'seqs', v_seqs);
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, length, first_ts) VALUES (p_thread, 0, p_ts) RETURNING key INTO v_key;
        v_length := 0;
      END IF;
      FOR i IN 1 .. v_count LOOP
        v_seq := coalesce((v_lengths ->> p_event_streams[i])::integer, 0);
        v_seqs := v_seqs || v_seq;
        v_lengths := v_lengths || jsonb_build_object(p_event_streams[i], v_seq + 1);
      END LOOP;
      INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked)
        SELECT v_key, v_length + u.n, u.type, u.stream, u.actor, u.origin, u.payload::json, u.seq, p_ts, u.version, u.checked
        FROM unnest(p_types, p_event_streams, p_actors, p_origins, p_payloads, v_seqs, p_versions, p_checked)
          WITH ORDINALITY AS u(type, stream, actor, origin, payload, seq, version, checked, n);
      UPDATE ${s}.trace_threads SET length = v_length + v_count WHERE key = v_key;
      PERFORM pg_notify(p_channel, p_thread);
      RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'seqs', v_seqs);
    END
    $fn$;`;
}

/**
 * The trace_append function of migration 5 (kept as it applied it): an append in one round trip, the events
 * as one array per column. Under the thread's lock it checks the lease and the expected stream lengths,
 * inserts the events with their positions and seqs, and notifies.
 */
function appendFromArrays(s: string, schema: string): string {
  return `
    CREATE FUNCTION ${s}.trace_append(
      p_thread text, p_owner text, p_counter integer, p_named text[], p_expected_streams text[],
      p_expected_lengths integer[], p_types text[], p_streams text[], p_places integer[], p_actors text[],
      p_origins text[], p_payloads text[], p_versions text[], p_checked text[], p_ts text
    ) RETURNS json LANGUAGE plpgsql
    -- A custom plan per call re-plans every statement on every append (the arrays' sizes change the estimates
    -- and never the plan); one generic plan per connection is the same plan without the planning.
    SET plan_cache_mode = force_generic_plan AS $fn$
    DECLARE
      v_owner text;
      v_counter integer;
      v_expires_at double precision;
      v_released boolean;
      v_key bigint;
      v_length integer;
      v_lengths json;
      v_notified boolean;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('${schema}:' || p_thread, 0));
      -- In one statement: the lease, and the thread's length and the named streams' lengths, each the last
      -- entry of an index (the cost does not grow with the thread; 0 for a new thread).
      SELECT l.owner, l.counter, l.expires_at, l.released, t.key, coalesce(last.position, 0), (
        SELECT coalesce(json_object_agg(n.stream, coalesce((SELECT e.seq + 1 FROM ${s}.trace_events e
          WHERE e.thread_key = t.key AND e.stream = n.stream ORDER BY e.seq DESC LIMIT 1), 0)), '{}')
        FROM unnest(p_named) n(stream))
      INTO v_owner, v_counter, v_expires_at, v_released, v_key, v_length, v_lengths
      FROM (SELECT) one
      LEFT JOIN ${s}.trace_leases l ON l.thread_id = p_thread
      LEFT JOIN ${s}.trace_threads t ON t.id = p_thread
      LEFT JOIN LATERAL (
        SELECT e.position FROM ${s}.trace_events e WHERE e.thread_key = t.key ORDER BY e.position DESC LIMIT 1
      ) last ON true;
      IF p_owner IS NOT NULL AND (v_owner IS NULL OR v_owner <> p_owner OR v_counter <> p_counter) THEN
        RETURN json_build_object('status', 'lease', 'owner', v_owner, 'counter', v_counter,
          'expiresAt', v_expires_at, 'released', v_released);
      END IF;
      FOR i IN 1 .. cardinality(p_expected_streams) LOOP
        IF coalesce((v_lengths ->> p_expected_streams[i])::integer, 0) <> p_expected_lengths[i] THEN
          RETURN json_build_object('status', 'moved', 'lengths', v_lengths);
        END IF;
      END LOOP;
      IF cardinality(p_types) = 0 THEN
        RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths);
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, first_ts) VALUES (p_thread, p_ts) RETURNING key INTO v_key;
      END IF;
      -- An event's seq is its stream's length plus its place among the batch's events of that stream (the
      -- caller counts them); the NOTIFY goes in the same statement.
      WITH inserted AS (
        INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked)
        SELECT v_key, v_length + u.n, u.type, u.stream, u.actor, u.origin, u.payload::json,
          (v_lengths ->> u.stream)::integer + u.place, p_ts, u.version, u.checked
        FROM unnest(p_types, p_streams, p_places, p_actors, p_origins, p_payloads, p_versions, p_checked)
          WITH ORDINALITY AS u(type, stream, place, actor, origin, payload, version, checked, n)
      )
      SELECT true INTO v_notified FROM pg_notify('${channelOf(schema)}', p_thread);
      RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths);
    END
    $fn$;`;
}

/**
 * The trace_append function of migration 6 (kept as it applied it): the events as two JSON arrays (headers with
 * each event's place among the batch's events of its stream, and payloads); the named streams' lengths read by
 * one index lookup each and answered as a JSON object.
 */
function appendFromJson(s: string, schema: string): string {
  return `
    CREATE FUNCTION ${s}.trace_append(
      p_thread text, p_owner text, p_counter integer, p_named text[], p_expected_streams text[],
      p_expected_lengths integer[], p_headers json, p_payloads json, p_count integer, p_ts text
    ) RETURNS json LANGUAGE plpgsql
    -- A custom plan per call re-plans every statement on every append (the arguments change the estimates
    -- and never the plan); one generic plan per connection is the same plan without the planning.
    SET plan_cache_mode = force_generic_plan AS $fn$
    DECLARE
      v_owner text;
      v_counter integer;
      v_expires_at double precision;
      v_released boolean;
      v_key bigint;
      v_length integer;
      v_lengths json;
      v_notified boolean;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended('${schema}:' || p_thread, 0));
      -- In one statement: the lease, and the thread's length and the named streams' lengths, each the last
      -- entry of an index (the cost does not grow with the thread; 0 for a new thread).
      SELECT l.owner, l.counter, l.expires_at, l.released, t.key, coalesce(last.position, 0), (
        SELECT coalesce(json_object_agg(n.stream, coalesce((SELECT e.seq + 1 FROM ${s}.trace_events e
          WHERE e.thread_key = t.key AND e.stream = n.stream ORDER BY e.seq DESC LIMIT 1), 0)), '{}')
        FROM unnest(p_named) n(stream))
      INTO v_owner, v_counter, v_expires_at, v_released, v_key, v_length, v_lengths
      FROM (SELECT) one
      LEFT JOIN ${s}.trace_leases l ON l.thread_id = p_thread
      LEFT JOIN ${s}.trace_threads t ON t.id = p_thread
      LEFT JOIN LATERAL (
        SELECT e.position FROM ${s}.trace_events e WHERE e.thread_key = t.key ORDER BY e.position DESC LIMIT 1
      ) last ON true;
      IF p_owner IS NOT NULL AND (v_owner IS NULL OR v_owner <> p_owner OR v_counter <> p_counter) THEN
        RETURN json_build_object('status', 'lease', 'owner', v_owner, 'counter', v_counter,
          'expiresAt', v_expires_at, 'released', v_released);
      END IF;
      FOR i IN 1 .. cardinality(p_expected_streams) LOOP
        IF coalesce((v_lengths ->> p_expected_streams[i])::integer, 0) <> p_expected_lengths[i] THEN
          RETURN json_build_object('status', 'moved', 'lengths', v_lengths);
        END IF;
      END LOOP;
      IF p_count = 0 THEN
        RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths);
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, first_ts) VALUES (p_thread, p_ts) RETURNING key INTO v_key;
      END IF;
      -- An event's seq is its stream's length plus its place among the batch's events of that stream. The payloads
      -- are elements of their own array, which keep their JSON text (a field read out of an object would be
      -- unescaped, and text cannot hold the \\u0000 a payload may). The NOTIFY goes in the same statement.
      WITH inserted AS (
        INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked)
        SELECT v_key, v_length + u.n, u.type, u.stream, u.actor, u.origin, u.payload,
          (v_lengths ->> u.stream)::integer + u.place, p_ts, u.version, u.checked
        FROM ROWS FROM (
          json_to_recordset(p_headers) AS (place integer, type text, stream text, actor text, origin text, version text,
            checked text),
          json_array_elements(p_payloads)
        ) WITH ORDINALITY AS u(place, type, stream, actor, origin, version, checked, payload, n)
      )
      SELECT true INTO v_notified FROM pg_notify('${channelOf(schema)}', p_thread);
      RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths);
    END
    $fn$;`;
}

/** How a procedure answers: a refusal is raised (REFUSED_STATE, the answer as its detail); an append returns. */
function refusedWith(outcome: string, refused: boolean): string {
  return refused
    ? `RAISE EXCEPTION USING ERRCODE = '${REFUSED_STATE}', MESSAGE = 'trace_write refused the append',\n          DETAIL = ${outcome}::text;`
    : "RETURN;";
}

/** The variables that threadRead fills. */
const threadDeclarations = `      v_owner text;
      v_counter integer;
      v_expires_at double precision;
      v_released boolean;
      v_key bigint;
      v_length integer;
      v_last_stream text;
      v_last_seq integer;`;

/**
 * The start of an append routine: the thread's lock, then the lease, the thread and its last event read in one
 * statement, and the lease checked (`answer` says how a refusal is answered).
 */
function threadRead(s: string, schema: string, answer: (outcome: string, refused: boolean) => string): string {
  return `      PERFORM pg_advisory_xact_lock(hashtextextended('${schema}:' || p_thread, 0));
      -- In one statement, after the lock (so that it reads what the previous holder wrote): the lease, the thread,
      -- and its last event (the primary key's last entry: the cost does not grow with the thread).
      SELECT l.owner, l.counter, l.expires_at, l.released, t.key, coalesce(last.position, 0), last.stream, last.seq
      INTO v_owner, v_counter, v_expires_at, v_released, v_key, v_length, v_last_stream, v_last_seq
      FROM (SELECT) one
      LEFT JOIN ${s}.trace_leases l ON l.thread_id = p_thread
      LEFT JOIN ${s}.trace_threads t ON t.id = p_thread
      LEFT JOIN LATERAL (
        SELECT e.position, e.stream, e.seq FROM ${s}.trace_events e WHERE e.thread_key = t.key
        ORDER BY e.position DESC LIMIT 1
      ) last ON true;
      IF p_owner IS NOT NULL AND (v_owner IS NULL OR v_owner <> p_owner OR v_counter <> p_counter) THEN
        ${answer(
          `json_build_object('status', 'lease', 'owner', v_owner, 'counter', v_counter,
          'expiresAt', v_expires_at, 'released', v_released)`,
          true,
        )}
      END IF;`;
}

/**
 * Set `target` to the length of `stream` in the thread that threadRead read: 0 for a new thread; from its last
 * event, where that is in the stream; else from the stream's last entry in the stream index.
 */
function streamLength(s: string, target: string, stream: string): string {
  return `IF v_key IS NULL THEN
          ${target} := 0;
        ELSIF ${stream} = v_last_stream THEN
          ${target} := v_last_seq + 1;
        ELSE
          ${target} := coalesce((SELECT e.seq + 1 FROM ${s}.trace_events e
            WHERE e.thread_key = v_key AND e.stream = ${stream} ORDER BY e.seq DESC LIMIT 1), 0);
        END IF;`;
}

/**
 * The trace_append function, as the latest migration makes it: an append in one round trip. Under the
 * thread's lock (the key that PostgresConnection.write takes) it checks the lease and the expected stream
 * lengths, inserts the events with their positions and seqs, and notifies. It reports a refusal as a status,
 * so the store raises the same errors as its other paths. The caller names the streams whose lengths it
 * needs (the events' and the expected ones) and, in the same order, the length it expects of each (null: any).
 * It gives the events as two JSON arrays in the batch's order: their headers, each with its stream's slot among
 * the named ones (from 1) and its place among the batch's events of that stream (from 0), and their payloads.
 * An append answers the first position and the named streams' lengths before it, in the named order.
 *
 * One index entry answers both the thread's length and, in the common case, the length of the stream the
 * thread's last event is in: within a stream, seqs grow with positions, so that event holds its stream's last
 * seq. Only another named stream costs a lookup of its own.
 *
 * The trace_write procedure (migration 8) is the same append made from the same text, for a caller that expects
 * a length of every stream it names and so needs no answer: it answers no row, and raises a refusal
 * (REFUSED_STATE) with the answer trace_append would give as its detail.
 */
function appendFunction(s: string, schema: string, routine: "function" | "procedure" = "function"): string {
  const procedure = routine === "procedure";
  // What the routine answers: the function returns it; the procedure raises a refusal and returns nothing else.
  const answer = (outcome: string, refused: boolean) =>
    !procedure ? `RETURN ${outcome};` : refusedWith(outcome, refused);
  return `
    CREATE ${procedure ? "PROCEDURE" : "FUNCTION"} ${s}.${procedure ? "trace_write" : "trace_append"}(
      p_thread text, p_owner text, p_counter integer, p_named text[], p_expected integer[], p_headers json,
      p_payloads json, p_count integer, p_ts text
    )${procedure ? "" : " RETURNS json"} LANGUAGE plpgsql
    -- A custom plan per call re-plans every statement on every append (the arguments change the estimates
    -- and never the plan); one generic plan per connection is the same plan without the planning.
    SET plan_cache_mode = force_generic_plan AS $fn$
    DECLARE
${threadDeclarations}
      v_lengths integer[] := p_expected;
      v_notified boolean;
    BEGIN
${threadRead(s, schema, answer)}
      FOR i IN 1 .. cardinality(p_named) LOOP
        ${streamLength(s, "v_lengths[i]", "p_named[i]")}
      END LOOP;
      -- Every length first, so that a refusal reports each expected stream's.
      FOR i IN 1 .. cardinality(p_named) LOOP
        IF v_lengths[i] <> p_expected[i] THEN
          ${answer("json_build_object('status', 'moved', 'lengths', v_lengths)", true)}
        END IF;
      END LOOP;
      IF p_count = 0 THEN
        ${answer("json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths)", false)}
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, first_ts) VALUES (p_thread, p_ts) RETURNING key INTO v_key;
      END IF;
      -- An event's seq is its stream's length plus its place among the batch's events of that stream. The payloads
      -- are elements of their own array, which keep their JSON text (a field read out of an object would be
      -- unescaped, and text cannot hold the \\u0000 a payload may). The NOTIFY goes in the same statement.
      WITH inserted AS (
        INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked)
        SELECT v_key, v_length + u.n, u.type, u.stream, u.actor, u.origin, u.payload, v_lengths[u.slot] + u.place, p_ts,
          u.version, u.checked
        FROM ROWS FROM (
          json_to_recordset(p_headers) AS (slot integer, place integer, type text, stream text, actor text, origin text,
            version text, checked text),
          json_array_elements(p_payloads)
        ) WITH ORDINALITY AS u(slot, place, type, stream, actor, origin, version, checked, payload, n)
      )
      SELECT true INTO v_notified FROM pg_notify('${channelOf(schema)}', p_thread);
      ${answer("json_build_object('status', 'appended', 'first', v_length + 1, 'lengths', v_lengths)", false)}
    END
    $fn$;`;
}

/**
 * The trace_write_one procedure (migration 9): trace_write for the runner's usual append, one event and its
 * stream's expected length, each column an argument of its own, so the server parses no JSON arrays into rows.
 * The same lock, checks, refusals (the lengths as a list of the one stream's) and NOTIFY.
 */
function writeOne(s: string, schema: string): string {
  return `
    CREATE PROCEDURE ${s}.trace_write_one(
      p_thread text, p_owner text, p_counter integer, p_stream text, p_expected integer, p_type text, p_actor text,
      p_origin text, p_payload json, p_version text, p_checked text, p_ts text
    ) LANGUAGE plpgsql
    -- One generic plan per connection, as trace_append's (the arguments never change the plan).
    SET plan_cache_mode = force_generic_plan AS $fn$
    DECLARE
${threadDeclarations}
      v_seq integer;
      v_notified boolean;
    BEGIN
${threadRead(s, schema, refusedWith)}
      ${streamLength(s, "v_seq", "p_stream")}
      IF v_seq <> p_expected THEN
        ${refusedWith("json_build_object('status', 'moved', 'lengths', json_build_array(v_seq))", true)}
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, first_ts) VALUES (p_thread, p_ts) RETURNING key INTO v_key;
      END IF;
      WITH inserted AS (
        INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version, checked)
        VALUES (v_key, v_length + 1, p_type, p_stream, p_actor, p_origin, p_payload, v_seq, p_ts, p_version, p_checked)
      )
      SELECT true INTO v_notified FROM pg_notify('${channelOf(schema)}', p_thread);
    END
    $fn$;`;
}

/**
 * The migrations in order; migratePostgres records the count applied in trace_migrations.
 * Thread ids and ts are in the "C" collation, so threads page in code-point order, as in the other stores.
 */
const MIGRATIONS: readonly ((quoted: string, schema: string) => string | Upgrade)[] = [
  (s) => `
    CREATE TABLE ${s}.trace_threads (
      key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text COLLATE "C" NOT NULL UNIQUE,
      length integer NOT NULL,
      first_ts text COLLATE "C" NOT NULL
    );
    CREATE INDEX trace_threads_newest ON ${s}.trace_threads (first_ts DESC, id DESC);
    CREATE TABLE ${s}.trace_events (
      thread_key bigint NOT NULL REFERENCES ${s}.trace_threads (key) ON DELETE CASCADE,
      position integer NOT NULL,
      type text NOT NULL,
      stream text NOT NULL,
      actor text NOT NULL,
      origin text,
      payload json NOT NULL,
      seq integer NOT NULL,
      ts text NOT NULL,
      version text,
      PRIMARY KEY (thread_key, position)
    );
    CREATE INDEX trace_events_stream ON ${s}.trace_events (thread_key, stream, seq);
    CREATE TABLE ${s}.trace_leases (
      thread_id text PRIMARY KEY,
      owner text NOT NULL,
      counter integer NOT NULL,
      expires_at double precision NOT NULL,
      released boolean NOT NULL
    );`,
  // An append in one round trip: under the thread's lock, check the lease and the expected stream
  // lengths, seal (seq per stream, positions), insert, grow the thread and notify. It reports a refusal
  // as a status, so the store raises the same errors as its other paths.
  (s) => `
    CREATE OR REPLACE FUNCTION ${s}.trace_append(
      p_thread text, p_lock text, p_channel text, p_owner text, p_counter integer,
      p_streams text[], p_expected_streams text[], p_expected_lengths integer[],
      p_types text[], p_event_streams text[], p_actors text[], p_origins text[], p_payloads text[],
      p_versions text[], p_ts text
    ) RETURNS json LANGUAGE plpgsql AS $fn$
    DECLARE
      v_key bigint;
      v_length integer;
      v_lease ${s}.trace_leases%ROWTYPE;
      v_lengths jsonb := '{}'::jsonb;
      v_seqs integer[] := '{}';
      v_seq integer;
      v_count integer := coalesce(array_length(p_types, 1), 0);
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
      IF p_owner IS NOT NULL THEN
        SELECT * INTO v_lease FROM ${s}.trace_leases WHERE thread_id = p_thread;
        IF NOT FOUND OR v_lease.owner <> p_owner OR v_lease.counter <> p_counter THEN
          RETURN json_build_object('status', 'lease', 'owner', v_lease.owner, 'counter', v_lease.counter,
            'expiresAt', v_lease.expires_at, 'released', v_lease.released);
        END IF;
      END IF;
      SELECT key, length INTO v_key, v_length FROM ${s}.trace_threads WHERE id = p_thread;
      IF v_key IS NOT NULL AND coalesce(array_length(p_streams, 1), 0) > 0 THEN
        SELECT coalesce(jsonb_object_agg(stream, length), '{}'::jsonb) INTO v_lengths FROM (
          SELECT stream, max(seq) + 1 AS length FROM ${s}.trace_events
          WHERE thread_key = v_key AND stream = ANY(p_streams) GROUP BY stream) found;
      END IF;
      FOR i IN 1 .. coalesce(array_length(p_expected_streams, 1), 0) LOOP
        IF coalesce((v_lengths ->> p_expected_streams[i])::integer, 0) <> p_expected_lengths[i] THEN
          RETURN json_build_object('status', 'moved', 'lengths', v_lengths);
        END IF;
      END LOOP;
      IF v_count = 0 THEN
        RETURN json_build_object('status', 'appended', 'first', coalesce(v_length, 0) + 1, 'seqs', v_seqs);
      END IF;
      IF v_key IS NULL THEN
        INSERT INTO ${s}.trace_threads (id, length, first_ts) VALUES (p_thread, 0, p_ts) RETURNING key INTO v_key;
        v_length := 0;
      END IF;
      FOR i IN 1 .. v_count LOOP
        v_seq := coalesce((v_lengths ->> p_event_streams[i])::integer, 0);
        v_seqs := v_seqs || v_seq;
        v_lengths := v_lengths || jsonb_build_object(p_event_streams[i], v_seq + 1);
      END LOOP;
      INSERT INTO ${s}.trace_events (thread_key, position, type, stream, actor, origin, payload, seq, ts, version)
        SELECT v_key, v_length + u.n, u.type, u.stream, u.actor, u.origin, u.payload::json, u.seq, p_ts, u.version
        FROM unnest(p_types, p_event_streams, p_actors, p_origins, p_payloads, v_seqs, p_versions)
          WITH ORDINALITY AS u(type, stream, actor, origin, payload, seq, version, n);
      UPDATE ${s}.trace_threads SET length = v_length + v_count WHERE key = v_key;
      PERFORM pg_notify(p_channel, p_thread);
      RETURN json_build_object('status', 'appended', 'first', v_length + 1, 'seqs', v_seqs);
    END
    $fn$;`,
  // The fingerprint of the event types that checked each event at append (null: checked on every decode),
  // and trace_append taking it.
  (s) => `
    ALTER TABLE ${s}.trace_events ADD COLUMN checked text;
    DROP FUNCTION ${s}.trace_append(text, text, text, text, integer, text[], text[], integer[], text[], text[],
      text[], text[], text[], text[], text);
${appendGrowingLength(s)}`,
  // trace_append reads each stream's length from the index's last entry, not by aggregating the stream.
  (s) => appendGrowingLength(s),
  // A cheaper append, same checks: the thread's length is its last position (the primary key's last entry)
  // rather than a row updated on every append, the events no longer carry a foreign key (a check and a row
  // lock per inserted row; writes under the thread's lock keep every event's thread, and delete removes the
  // events itself), and trace_append's statements run on plans made once per connection.
  (s, schema) => `
    ALTER TABLE ${s}.trace_events DROP CONSTRAINT trace_events_thread_key_fkey;
    ALTER TABLE ${s}.trace_threads DROP COLUMN length;
    DROP FUNCTION ${s}.trace_append(text, text, text, text, integer, text[], text[], integer[], text[], text[],
      text[], text[], text[], text[], text, text[]);
${appendFromArrays(s, schema)}`,
  // The events as two JSON arrays (headers, payloads) rather than eight arrays of columns: the client writes each
  // payload's JSON into its array as it is (no array quoting), and the server parses two values instead of eight arrays.
  (s, schema) => `
    DROP FUNCTION ${s}.trace_append(text, text, integer, text[], text[], integer[], text[], text[], integer[], text[],
      text[], text[], text[], text[], text);
${appendFromJson(s, schema)}`,
  // The thread's last event answers its length and its stream's (one index entry instead of one per named stream),
  // the lengths go as arrays in the order of the named streams (no JSON object to build and read back), and each
  // event names its stream's slot among them.
  (s, schema) => `
    DROP FUNCTION ${s}.trace_append(text, text, integer, text[], text[], integer[], json, json, integer, text);
${appendFunction(s, schema)}`,
  // An append that expects a length of every stream it names needs no answer: each seq is its stream's expected
  // length plus its place in the batch. The trace_write procedure answers no row, which the client would
  // otherwise parse at each append.
  (s, schema) => appendFunction(s, schema, "procedure"),
  // The runner's usual append, one event with its stream's expected length, as arguments of their own.
  (s, schema) => writeOne(s, schema),
  // A principal's threads through an index of first inputs by principal, not a scan of every thread.
  (s) => `
    CREATE INDEX IF NOT EXISTS trace_events_principal ON ${s}.trace_events ((payload->>'principal'), ts DESC)
      WHERE position = 1 AND type = 'input';`,
  // The events in the reference's stored format (wire-format.ts): snake_case fields and type names.
  (s) => (client) => upgradeStoredFormat(client, s),
];

/** A migration step that SQL alone cannot say, run in the migration's transaction. */
type Upgrade = (client: PoolClient) => Promise<void>;

const UPGRADE_BATCH = 1000;

/** Rewrite the events of an earlier format in the reference's (upgradeStoredRow), a page at a time. */
async function upgradeStoredFormat(client: PoolClient, s: string): Promise<void> {
  type Row = { thread_key: string; position: number; type: string; payload: JsonObject };
  for (let after: [string, number] = ["-1", -1]; ;) {
    const { rows } = await client.query<Row>(
      `SELECT thread_key, position, type, payload FROM ${s}.trace_events WHERE (thread_key, position) > ($1, $2)
       ORDER BY thread_key, position LIMIT ${UPGRADE_BATCH}`,
      after,
    );
    for (const row of rows) {
      const upgraded = upgradeStoredRow(row.type, row.payload);
      await client.query(
        `UPDATE ${s}.trace_events SET type = $1, payload = $2::json WHERE thread_key = $3 AND position = $4`,
        [upgraded.type, JSON.stringify(upgraded.payload), row.thread_key, row.position],
      );
    }
    if (rows.length < UPGRADE_BATCH) return;
    after = [rows.at(-1)!.thread_key, rows.at(-1)!.position];
  }
}

/** Check a schema name, and return it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new ValueError(
      `A PostgreSQL schema name for the trace store must match ${SCHEMA_NAME.source}, got ${JSON.stringify(schema)}.`,
    );
  }
  return `"${schema}"`;
}

/** The channel on which a store's writes NOTIFY the thread id, one per schema. */
export function channelOf(schema: string): string {
  return `soev_trace_${schema}`;
}

/**
 * Create PostgresTraceStore's tables in `schema` (and the schema itself) if they are missing. It is
 * idempotent and safe to run from several processes at once: call it at deploy or start-up, before
 * the first store on that schema is used.
 *
 * @example
 * await migratePostgres(pool, { schema: "agents" });
 * const store = new PostgresTraceStore({ pool, schema: "agents" });
 */
export async function migratePostgres(pool: Pool, options: MigratePostgresOptions = {}): Promise<void> {
  await migratePostgresTo(pool, options.schema ?? DEFAULT_SCHEMA, MIGRATIONS.length);
}

/**
 * Apply the migrations of `schema` up to `version` (the count applied). For tests of the upgrade path, which
 * write rows as an older version did; the store itself needs every migration.
 *
 * @internal
 */
export async function migratePostgresTo(pool: Pool, schema: string, version: number): Promise<void> {
  const quoted = quoteSchema(schema);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // One migration at a time per schema, so concurrent start-ups never race on CREATE.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`soev-trace-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.trace_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ applied: number }>(
      `SELECT count(*)::int AS applied FROM ${quoted}.trace_migrations`,
    );
    for (let next = rows[0]!.applied; next < Math.min(version, MIGRATIONS.length); next++) {
      const step = MIGRATIONS[next]!(quoted, schema);
      await (typeof step === "string" ? client.query(step) : step(client));
      await client.query(`INSERT INTO ${quoted}.trace_migrations (version) VALUES ($1)`, [next + 1]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
