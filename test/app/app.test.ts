// The HTTP app with its worker in one process (the embedded default): real HTTP, real SSE, the run's
// Temporal dev server, a SQLite store, and a scripted model that streams its text in several deltas.
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER, StreamingModel } from "../fixtures/app/streaming.js";
import { gateFolder, type TestStore } from "../temporal/harness.js";
import { checkFragments, readEvents, type SseMessage } from "./sse.js";
import { startAppStack, type AppStack } from "./stack.js";

const ALICE = { authorization: "Bearer alice-key" };
const BOB = { authorization: "Bearer bob-key" };
const QUESTION = "How often is bulky waste picked up?";

let stack: AppStack;
let store: TestStore;
let served: AppStack["served"];
const resourcesAsked: { threadId: string; agent: string; principal: string | null }[] = [];
// The model hangs mid-answer while this file is missing (the 409 and cancel test removes it).
const hangFile = join(gateFolder(), "hang");

beforeAll(async () => {
  writeFileSync(hangFile, "no hang");
  const model = new StreamingModel({ pause: 60, hang: { after: 2, file: hangFile } });
  stack = await startAppStack({
    model,
    resources: (thread) => {
      resourcesAsked.push(thread);
      return undefined;
    },
  });
  ({ store, served } = stack);
});

afterAll(async () => {
  await stack?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = ALICE): Promise<Response> {
  return fetch(`${served.url}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function openThread(
  input: unknown = QUESTION,
): Promise<{ threadId: string; workflowId: string; events: string }> {
  const response = await post("/threads", { agent: "assistant", input });
  expect(response.status, await response.clone().text()).toBe(202);
  return (await response.json()) as { threadId: string; workflowId: string; events: string };
}

async function traceLength(threadId: string): Promise<number> {
  let count = 0;
  for await (const _entry of store.store.read(threadId)) count++;
  return count;
}

const events = (messages: SseMessage[]) => messages.filter((message) => message.event === "event");

describe("following a turn over SSE", () => {
  it("sends the model's fragments in order before its ModelOutput, then the events, then the end", async () => {
    const opened = await openThread();
    const messages = await readEvents(opened.events, ALICE);
    const types = events(messages).map((message) => message.data.type);
    expect(types).toEqual(["input", "model_output", "tool_output", "model_output"]);
    const { texts } = checkFragments(messages);
    expect(texts.at(-1)).toBe(ANSWER);
    const answerAt = messages.findIndex((message) => message.event === "event" && message.data.seq === 3);
    const fragments = messages.slice(0, answerAt).filter((message) => message.event === "fragment");
    // Several deltas, in the order written, each before the output.
    expect(fragments.length).toBeGreaterThanOrEqual(5);
    expect(fragments.map((fragment) => fragment.data.index)).toEqual(fragments.map((_fragment, index) => index));
    expect(messages.at(-1)!.event).toBe("end");
    expect(messages.at(-1)!.data.status).toBe("completed");
    // The fragments changed nothing recorded: the thread's answer is the output as written.
    const thread = (await (await fetch(`${served.url}/threads/${opened.threadId}`, { headers: ALICE })).json()) as {
      principal: string;
      turns: { answer: { text: string; citations: { passages: { text: string }[] }[] } }[];
    };
    expect(thread.principal).toBe("alice");
    expect(thread.turns[0]!.answer.text).toBe(ANSWER);
    expect(thread.turns[0]!.answer.citations[0]!.passages[0]!.text).toContain("four times a year");
    // The principal reached the thread's resources.
    expect(resourcesAsked).toContainEqual({ threadId: opened.threadId, agent: "assistant", principal: "alice" });
  });

  it("resumes with Last-Event-ID after a disconnect: every later event exactly once", async () => {
    const opened = await openThread();
    const first = await readEvents(opened.events, ALICE, (_message, seen) => events(seen).length === 2);
    expect(first.some((message) => message.event === "end")).toBe(false);
    const lastId = events(first).at(-1)!.id!;
    const rest = await readEvents(`${served.url}/threads/${opened.threadId}/events`, {
      ...ALICE,
      "last-event-id": lastId,
    });
    const ids = [...events(first), ...events(rest)].map((message) => Number(message.id));
    const length = await traceLength(opened.threadId);
    expect(ids).toEqual(Array.from({ length }, (_value, index) => index + 1));
    expect(rest.at(-1)!.event).toBe("end");
    // ?after= resumes the same way.
    const after = await readEvents(`${served.url}/threads/${opened.threadId}/events?after=${lastId}`, ALICE);
    expect(events(after).map((message) => Number(message.id))).toEqual(ids.slice(2));
  });
});

describe("following a turn as the AI SDK's UI message stream", () => {
  it("reads back, by the ai package, as the streamed answer with its cited passage and the tool's result", async () => {
    const opened = await openThread();
    const response = await fetch(`${served.url}/threads/${opened.threadId}/ui-stream`, { headers: ALICE });
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const chunks = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema() }).pipeThrough(
      new TransformStream<{ success: boolean; value?: UIMessageChunk }, UIMessageChunk>({
        transform: (parsed, controller) => {
          expect(parsed.success).toBe(true);
          controller.enqueue(parsed.value!);
        },
      }),
    );
    let message: UIMessage | undefined;
    for await (const built of readUIMessageStream({ stream: chunks })) message = built;
    const parts = message!.parts;
    expect(parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text)).toEqual([
      ANSWER,
    ]);
    expect(parts.find((part) => part.type === "tool-search")).toMatchObject({ state: "output-available" });
    const sources = parts.filter((part) => part.type === "source-document") as { title: string }[];
    expect(sources.map((source) => source.title)).toEqual([expect.stringContaining("four times a year")]);
  });
});

describe("refusals", () => {
  it("answers 401 without a key or with an unknown one, as a problem", async () => {
    for (const headers of [{}, { authorization: "Bearer nobody" }, { authorization: "Basic abc" }] as Record<
      string,
      string
    >[]) {
      const response = await post("/threads", { agent: "assistant", input: QUESTION }, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { detail: string }).detail).toMatch(/Bearer/);
    }
    expect((await fetch(`${served.url}/threads`)).status).toBe(401);
  });

  it("answers 404 for another principal's thread on every route, and changes nothing", async () => {
    const opened = await openThread();
    await readEvents(opened.events, ALICE);
    const before = await traceLength(opened.threadId);
    const base = `${served.url}/threads/${opened.threadId}`;
    const answers = [
      await fetch(base, { headers: BOB }),
      await fetch(`${base}/events`, { headers: BOB }),
      await fetch(`${base}/calls/1`, { headers: BOB }),
      await post(`/threads/${opened.threadId}/turns`, { input: "And parking?" }, BOB),
      await post(`/threads/${opened.threadId}/cancel`, {}, BOB),
    ];
    expect(answers.map((response) => response.status)).toEqual([404, 404, 404, 404, 404]);
    expect(await traceLength(opened.threadId)).toBe(before);
    const listed = (await (await fetch(`${served.url}/threads`, { headers: BOB })).json()) as {
      threads: { threadId: string }[];
    };
    expect(listed.threads.map((thread) => thread.threadId)).not.toContain(opened.threadId);
    const mine = (await (await fetch(`${served.url}/threads`, { headers: ALICE })).json()) as {
      threads: { threadId: string }[];
    };
    expect(mine.threads.map((thread) => thread.threadId)).toContain(opened.threadId);
  });

  it("answers 413 past the byte limit and 422 with the field path, recording nothing", async () => {
    const threadsBefore = (await store.store.threads({ limit: 1000 })).length;
    const big = await post("/threads", { agent: "assistant", input: "x".repeat(4000) });
    expect(big.status).toBe(413);
    const noAgent = await post("/threads", { input: QUESTION });
    expect(noAgent.status).toBe(422);
    expect(((await noAgent.json()) as { field: string }).field).toBe("agent");
    const notText = await post("/threads", { agent: "assistant", input: 42 });
    expect(notText.status).toBe(422);
    expect(((await notText.json()) as { field: string }).field).toBe("input");
    const badField = await post("/threads", { agent: "chat", input: { text: 5 } });
    expect(badField.status).toBe(422);
    expect(((await badField.json()) as { field: string }).field).toBe("input.text");
    const broken = await post("/threads", "{not json");
    expect([400, 422]).toContain(broken.status);
    expect((await store.store.threads({ limit: 1000 })).length).toBe(threadsBefore);
  });

  it("answers 409 for a running turn, naming it, and records the cancel of the turn", async () => {
    rmSync(hangFile);
    const opened = await openThread();
    while (!existsSync(hangFile)) await sleep(50);
    const before = await traceLength(opened.threadId);
    const second = await post(`/threads/${opened.threadId}/turns`, { input: "And parking?" });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { workflowId: string }).workflowId).toBe(opened.workflowId);
    expect(await traceLength(opened.threadId)).toBe(before);
    const following = readEvents(opened.events, ALICE);
    const cancel = await post(`/threads/${opened.threadId}/cancel`, {});
    expect(cancel.status).toBe(202);
    const messages = await following;
    expect(messages.at(-1)!.data.status).toBe("cancelled");
    const last = events(messages).at(-1)!.data;
    expect(last.type).toBe("failure");
    expect(String(last.error)).toMatch(/Cancel/);
    expect(await store.store.lease(opened.threadId)).toBeNull();
    // No turn runs now: a second cancel is refused.
    expect((await post(`/threads/${opened.threadId}/cancel`, {})).status).toBe(409);
  });
});

describe("inspecting", () => {
  it("shows what model call n received, rebuilt and matching its hash", async () => {
    const opened = await openThread();
    await readEvents(opened.events, ALICE);
    const call = (await (
      await fetch(`${served.url}/threads/${opened.threadId}/calls/2`, { headers: ALICE })
    ).json()) as {
      matches: boolean;
      request: { messages: { role: string }[]; tools: { name: string }[] };
      explain: unknown[];
    };
    expect(call.matches).toBe(true);
    expect(call.request.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(call.request.tools.map((tool) => tool.name)).toContain("search");
    expect((await fetch(`${served.url}/threads/${opened.threadId}/calls/9`, { headers: ALICE })).status).toBe(404);
  });

  it("serves an OpenAPI 3.1 document that lists every route, with resolvable references", async () => {
    const document = (await (await fetch(`${served.url}/openapi.json`)).json()) as OpenApiDocument;
    checkOpenApi31(document);
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        "GET /agents",
        "GET /healthz",
        "GET /readyz",
        "GET /threads",
        "GET /threads/{threadId}",
        "GET /threads/{threadId}/calls/{n}",
        "GET /threads/{threadId}/calls/{n}/whatif",
        "GET /reruns/{batchId}",
        "GET /threads/{threadId}/events",
        "GET /threads/{threadId}/ui-stream",
        "POST /threads",
        "POST /threads/{threadId}/cancel",
        "POST /threads/{threadId}/turns",
        "POST /threads/{threadId}/token",
        "GET /threads/{threadId}/requests",
        "POST /threads/{threadId}/requests/{requestId}",
      ].sort(),
    );
  });
});

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>
  >;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

/** The structure OpenAPI 3.1 requires of the document, its operations, parameters and references. */
function checkOpenApi31(document: OpenApiDocument): void {
  expect(document.openapi).toMatch(/^3\.1\.\d+$/);
  expect(typeof document.info.title).toBe("string");
  expect(typeof document.info.version).toBe("string");
  const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
  for (const [path, item] of Object.entries(document.paths)) {
    expect(path.startsWith("/")).toBe(true);
    const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    for (const [method, operation] of Object.entries(item)) {
      expect(methods.has(method)).toBe(true);
      expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
      for (const status of Object.keys(operation.responses)) expect(status).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
      const inPath = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "path")
        .map((parameter) => parameter.name);
      expect(inPath.sort()).toEqual([...templated].sort());
    }
  }
  const text = JSON.stringify(document);
  for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
    const parts = ref!.replace(/^#\//, "").split("/");
    let node: unknown = document;
    for (const part of parts) node = (node as Record<string, unknown> | undefined)?.[part];
    expect(node, `the reference ${ref} resolves`).toBeDefined();
  }
}
