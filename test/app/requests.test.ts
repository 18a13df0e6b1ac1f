// A person in the loop over HTTP: the requests a turn waits on (GET /threads/{id}/requests), the answer
// (POST /threads/{id}/requests/{requestId}) with its refusals as problem details that record nothing, and
// the Request and Response events on the event stream. Real HTTP, the run's Temporal dev server, SQLite.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL_SCHEMA } from "../../src/domain/requests.js";
import type { TraceStore } from "../../src/ports/store.js";
import { AgentCatalog } from "../../src/runtime/catalog.js";
import { ReActAgent, ReActConfig } from "../../src/toolkit/index.js";
import { CLERK_MODEL, CLERK_SCRIPTS, clerkModel, clerkTools, errandCatalog, type RunLog } from "../fixtures/person.js";
import { readEvents, type SseMessage } from "./sse.js";
import { startAppStack, type AppStack } from "./stack.js";

const ALICE = { authorization: "Bearer alice-key" };
const BOB = { authorization: "Bearer bob-key" };
// The booking's question waits an hour, so its deadline shows and never passes during the test.
const DEADLINE_SECONDS = 3600;

let stack: AppStack;
const log: RunLog = { runs: [] };

/** The clerk's agents: "mail" (an approval), "booking" (a question), "office" (a delegated task that needs approval). */
function clerks(store: TraceStore): AgentCatalog {
  const tools = clerkTools(log, { deadlineSeconds: DEADLINE_SECONDS });
  const agent = (script: (typeof CLERK_SCRIPTS)[keyof typeof CLERK_SCRIPTS]) =>
    new ReActAgent(new ReActConfig({ model: clerkModel(script), prompt: "You are a clerk.", tools }));
  return new AgentCatalog(
    store,
    {
      mail: agent(CLERK_SCRIPTS.mail),
      booking: agent(CLERK_SCRIPTS.booking),
      office: errandCatalog(store, log).catalog.agent("office"),
    },
    { version: "requests-test" },
  );
}

beforeAll(async () => {
  stack = await startAppStack({ catalog: clerks, app: { defaultModel: CLERK_MODEL } });
});
afterAll(() => stack?.close());

async function post(path: string, body: unknown, headers: Record<string, string> = ALICE): Promise<Response> {
  return fetch(`${stack.served.url}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

interface Pending {
  requestId: string;
  kind: string;
  text: string;
  stream: string;
  tool: string | null;
  arguments: unknown;
  schema: Record<string, unknown> | null;
  deadline: string | null;
  hasDefault: boolean;
  position: number;
}

/** Open a thread of `agent` and wait until its turn waits on a request: the thread and what GET /requests lists. */
async function waitingThread(agent: string): Promise<{ threadId: string; events: string; requests: Pending[] }> {
  const opened = await post("/threads", { agent, input: "Please do it." });
  expect(opened.status, await opened.clone().text()).toBe(202);
  const { threadId, events } = (await opened.json()) as { threadId: string; events: string };
  for (;;) {
    const listed = await fetch(`${stack.served.url}/threads/${threadId}/requests`, { headers: ALICE });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { running: boolean; requests: Pending[] };
    if (body.requests.length > 0) {
      expect(body.running).toBe(true);
      return { threadId, events, requests: body.requests };
    }
    await sleep(100);
  }
}

/** GET /threads/{threadId}: the requests each tool call made, with their answers. */
async function threadView(threadId: string): Promise<{ turns: { toolCalls: { requests: unknown[] }[] }[] }> {
  const response = await fetch(`${stack.served.url}/threads/${threadId}`, { headers: ALICE });
  expect(response.status).toBe(200);
  return (await response.json()) as { turns: { toolCalls: { requests: unknown[] }[] }[] };
}

async function traceLength(threadId: string): Promise<number> {
  let count = 0;
  for await (const _entry of stack.store.store.read(threadId)) count++;
  return count;
}

async function problem(response: Response, status: number): Promise<{ detail: string; field?: string }> {
  expect(response.status, await response.clone().text()).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/problem+json");
  return (await response.json()) as { detail: string; field?: string };
}

const events = (messages: SseMessage[]) => messages.filter((message) => message.event === "event");

describe("a person in the loop over HTTP", () => {
  it("lists the approval a turn waits on, refuses bad answers recording nothing, records the approval once", async () => {
    const { threadId, events: eventsUrl, requests } = await waitingThread("mail");
    expect(requests).toEqual([
      expect.objectContaining({
        requestId: "mail-1:approval",
        kind: "approval",
        stream: "main",
        tool: "send_mail",
        arguments: { to: "ada@example.org", subject: "Invoice" },
        schema: APPROVAL_SCHEMA,
        deadline: null,
      }),
    ]);
    expect(requests[0]!.text).toContain("send_mail");
    const following = readEvents(eventsUrl, ALICE);
    const answerUrl = `/threads/${threadId}/requests/mail-1:approval`;
    const before = await traceLength(threadId);

    // Another principal: 404 on both routes, as for the thread's other routes.
    expect((await fetch(`${stack.served.url}/threads/${threadId}/requests`, { headers: BOB })).status).toBe(404);
    await problem(await post(answerUrl, { approved: true }, BOB), 404);
    // An unknown request, a payload that fails the approval's schema, and no answer at all.
    expect((await problem(await post(`/threads/${threadId}/requests/nope`, { approved: true }), 404)).detail).toMatch(
      /No request "nope"/,
    );
    expect((await problem(await post(answerUrl, { payload: { approved: "yes" } }), 422)).field).toBe(
      "payload.approved",
    );
    expect((await problem(await post(answerUrl, { payload: { approved: true, extra: 1 } }), 422)).field).toBe(
      "payload",
    );
    expect((await problem(await post(answerUrl, {}), 422)).field).toBe("payload");
    expect(await traceLength(threadId)).toBe(before);
    expect(log.runs).not.toContain("send_mail ada@example.org");

    const answered = await post(answerUrl, { approved: true });
    expect(answered.status, await answered.clone().text()).toBe(200);
    expect(await answered.json()).toMatchObject({ threadId, requestId: "mail-1:approval" });
    // A second answer: 409, nothing more recorded.
    expect((await problem(await post(answerUrl, { approved: false }), 409)).detail).toMatch(/answered already/);

    // The stream from the turn's start: the Request, then the Response, each once, then the tool's output.
    const messages = await following;
    expect(events(messages).map((message) => message.data.type)).toEqual([
      "input",
      "model_output",
      "request",
      "response",
      "tool_output",
      "model_output",
    ]);
    const [request, response] = events(messages)
      .slice(2, 4)
      .map((message) => message.data);
    expect(request).toMatchObject({ request_id: "mail-1:approval", kind: "approval", tool: "send_mail" });
    expect(response).toMatchObject({ request_id: "mail-1:approval", payload: { approved: true } });
    expect(messages.at(-1)).toMatchObject({ event: "end", data: { status: "completed" } });
    expect(log.runs.filter((run) => run === "send_mail ada@example.org")).toHaveLength(1);
    // The turn ended: nothing waits, and a late answer is refused.
    const after = (await (
      await fetch(`${stack.served.url}/threads/${threadId}/requests`, { headers: ALICE })
    ).json()) as {
      running: boolean;
      requests: Pending[];
    };
    expect(after).toMatchObject({ running: false, requests: [] });
    expect((await problem(await post(answerUrl, { approved: true }), 409)).detail).toMatch(/answered already/);
  });

  it("records a denial with its reason: the tool never runs and the model reads why", async () => {
    const runsBefore = log.runs.length;
    const { threadId, events: eventsUrl } = await waitingThread("mail");
    const answered = await post(`/threads/${threadId}/requests/mail-1:approval`, {
      approved: false,
      reason: "Wrong address.",
    });
    expect(answered.status, await answered.clone().text()).toBe(200);
    const messages = await readEvents(eventsUrl, ALICE);
    const output = events(messages).find((message) => message.data.type === "tool_output")!.data;
    expect(JSON.stringify(output)).toMatch(/denied/i);
    expect(JSON.stringify(output)).toContain("Wrong address.");
    expect(log.runs.length).toBe(runsBefore);
    // The thread shows the decision on its call.
    expect((await threadView(threadId)).turns[0]!.toolCalls[0]!.requests).toEqual([
      {
        requestId: "mail-1:approval",
        kind: "approval",
        text: expect.stringContaining("send_mail"),
        answer: { payload: { approved: false, reason: "Wrong address." } },
      },
    ]);
  });

  it("checks a question's answer against its schema, naming the field, and shows its deadline", async () => {
    const asked = Date.now();
    const { threadId, events: eventsUrl, requests } = await waitingThread("booking");
    expect(requests).toEqual([
      expect.objectContaining({
        requestId: "book-1:ask:0",
        kind: "question",
        callId: "book-1",
        tool: "book_slot",
        hasDefault: false,
      }),
    ]);
    const request = requests[0]!;
    expect(request.text).toBe("Which date suits you for the bulky waste pickup?");
    expect(request.schema).toMatchObject({ type: "object", required: ["date"] });
    const deadline = Date.parse(request.deadline!);
    expect(deadline).toBeGreaterThan(asked + (DEADLINE_SECONDS - 60) * 1000);
    expect(deadline).toBeLessThan(Date.now() + (DEADLINE_SECONDS + 60) * 1000);
    const url = `/threads/${threadId}/requests/${encodeURIComponent(request.requestId)}`;
    const question = { requestId: "book-1:ask:0", kind: "question", text: request.text, answer: null };
    expect((await threadView(threadId)).turns[0]!.toolCalls[0]!.requests).toEqual([question]);
    const before = await traceLength(threadId);
    const refused = await problem(await post(url, { payload: { date: "tomorrow" } }), 422);
    expect(refused.field).toBe("payload.date");
    expect(await traceLength(threadId)).toBe(before);
    const answered = await post(url, { payload: { date: "2026-12-01" } });
    expect(answered.status, await answered.clone().text()).toBe(200);
    const messages = await readEvents(eventsUrl, ALICE);
    expect(messages.at(-1)).toMatchObject({ event: "end", data: { status: "completed" } });
    expect(log.runs).toContain("book_slot 2026-12-01");
    expect((await threadView(threadId)).turns[0]!.toolCalls[0]!.requests).toEqual([
      { ...question, answer: { payload: { date: "2026-12-01" } } },
    ]);
  });

  it("lists and answers the request of a delegated task through its thread", async () => {
    const { threadId, events: eventsUrl, requests } = await waitingThread("office");
    expect(requests).toEqual([
      expect.objectContaining({ requestId: "mail-1:approval", stream: "task-errand-1", tool: "send_mail" }),
    ]);
    const answered = await post(`/threads/${threadId}/requests/mail-1:approval`, { approved: true });
    expect(answered.status, await answered.clone().text()).toBe(200);
    const messages = await readEvents(eventsUrl, ALICE);
    expect(messages.at(-1)).toMatchObject({ event: "end", data: { status: "completed" } });
    const streams = events(messages).flatMap((message) =>
      message.data.type === "response" ? [message.data.stream] : [],
    );
    expect(streams).toEqual(["task-errand-1"]);
  });
});
