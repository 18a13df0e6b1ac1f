// PostgresLiveChannel on a real PostgreSQL: fragments published at once, from many threads, go out in
// batches (one statement notifies what waited), and still arrive in order, each once, long ones whole.
import { randomBytes } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { PostgresLiveChannel } from "../../../src/adapters/live/postgres.js";
import type { LiveFragment } from "../../../src/ports/live.js";
import { postgresUrl } from "../../support/postgres.js";

const opened: PostgresLiveChannel[] = [];

/** A publisher and a listener on a channel of the test's own. */
function channels(): { publisher: PostgresLiveChannel; listener: PostgresLiveChannel } {
  const channel = `test_live_${randomBytes(4).toString("hex")}`;
  const publisher = new PostgresLiveChannel({ connectionString: postgresUrl(), channel });
  const listener = new PostgresLiveChannel({ connectionString: postgresUrl(), channel });
  opened.push(publisher, listener);
  return { publisher, listener };
}

const fragment = (threadId: string, index: number, text: string): LiveFragment => ({
  threadId,
  stream: "main",
  node: "llm",
  key: "1",
  attempt: 1,
  index,
  kind: "text",
  text,
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((channel) => channel.close()));
});

it("delivers fragments published all at once by ten threads in order, each once", async () => {
  const { publisher, listener } = channels();
  const received = new Map<string, number[]>();
  const threads = Array.from({ length: 10 }, (_, index) => `thread-${index}`);
  for (const threadId of threads) {
    received.set(threadId, []);
    await listener.subscribe(threadId, (arrived) => received.get(threadId)!.push(arrived.index));
  }
  // 300 publishes before the first round trip ends: they go out many to a statement.
  await Promise.all(
    Array.from({ length: 30 }, (_, index) =>
      threads.map((threadId) => publisher.publish(fragment(threadId, index, "a"))),
    ).flat(),
  );
  await listener.sync();
  for (const threadId of threads)
    expect(received.get(threadId)).toEqual(Array.from({ length: 30 }, (_, index) => index));
});

it("delivers a long fragment whose parts are alike whole, and the same fragment twice twice", async () => {
  const { publisher, listener } = channels();
  const texts: string[] = [];
  await listener.subscribe("thread", (arrived) => texts.push(arrived.text));
  const long = `${"x".repeat(3000)}end`;
  // PostgreSQL delivers identical notifications of one transaction once: alike parts must not share one.
  await Promise.all([publisher.publish(fragment("thread", 0, long)), publisher.publish(fragment("thread", 0, long))]);
  await listener.sync();
  expect(texts.join("")).toBe(long + long);
  expect(texts).toHaveLength(8);
});
