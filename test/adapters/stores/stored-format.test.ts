// A SQLite file that today's main wrote before the stored format was the reference's (camelCase fields, kebab-case
// type names: test/fixtures/stored-format/main-6ae8561.sqlite, one event of each core type) opens upgraded: its rows
// are the reference's (test/fixtures/reference/events.json), they decode, and opening it again changes nothing.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { Document, Passage } from "../../../examples/tutorials/02-citations/tools.js";
import { SqliteTraceStore } from "../../../src/adapters/stores/sqlite.js";
import type { StoredEvent } from "../../../src/domain/events.js";
import { EventTypes } from "../../../src/domain/registry.js";
import { collect } from "./conformance/support.js";

const folder = mkdtempSync(join(tmpdir(), "soev-stored-format-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const LEGACY = new URL("../../fixtures/stored-format/main-6ae8561.sqlite", import.meta.url);
const REFERENCE = JSON.parse(
  readFileSync(new URL("../../fixtures/reference/events.json", import.meta.url), "utf8"),
) as StoredEvent[];

/** What the format decides of an event: its type's name and its payload. */
const formatOf = (events: readonly StoredEvent[]) => events.map((event) => [event.type, event.payload]);

async function read(path: string): Promise<StoredEvent[]> {
  const store = new SqliteTraceStore(path);
  const events = (await collect(store.read("legacy-thread"))).map((entry) => entry.event);
  await store.close();
  return events;
}

it("upgrades a file of the earlier format to the reference's, once, and its events decode", async () => {
  const path = join(folder, "legacy.sqlite");
  copyFileSync(LEGACY, path);
  const before = new BetterSqlite3(path, { readonly: true });
  expect(before.pragma("user_version", { simple: true })).toBe(0);
  expect(before.prepare("SELECT type FROM trace_events WHERE position = 2").pluck().get()).toBe("model-output");
  before.close();

  const upgraded = await read(path);
  expect(formatOf(upgraded)).toEqual(formatOf(REFERENCE));
  const types = new EventTypes({ elements: [Document, Passage] });
  expect(upgraded.map((event) => types.decode(event).type)).toContain("task-input");
  expect(await read(path)).toEqual(upgraded);
  const after = new BetterSqlite3(path, { readonly: true });
  expect(after.pragma("user_version", { simple: true })).toBe(1);
  after.close();
});
