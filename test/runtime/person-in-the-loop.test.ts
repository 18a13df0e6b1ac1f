// A person in the loop on the local runner: an approval before a tool runs, a question with a schema, a
// deadline, refused answers that record nothing, and cancellation recorded once.
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Failure, Input, Request, Response, ToolOutput } from "../../src/domain/index.js";
import { AnswerRefusedError, NoAnswerError } from "../../src/runtime/index.js";
import { ManualClock } from "../../src/testing/index.js";
import { CLERK_MODEL, CLERK_SCRIPTS, clerkCatalog, clerkModel, type Waiting } from "../fixtures/person.js";

async function opened(script: keyof typeof CLERK_SCRIPTS, waiting?: Waiting, payload = "Please do it.") {
  // Deadlines count on a clock the test moves: no test waits for one to pass.
  const clock = new ManualClock();
  const clerk = clerkCatalog(new InMemoryTraceStore({ clock }), { script: CLERK_SCRIPTS[script], waiting, clock });
  const [thread] = await clerk.catalog.open("clerk", Input({ payload, model: CLERK_MODEL }));
  return { ...clerk, thread, clock };
}

const types = (events: readonly { type: string }[]) => events.map((event) => event.type);

describe("a tool that needs approval", () => {
  it("waits with a Request showing the tool and arguments, runs once when approved, and the next turn works", async () => {
    const { thread, log } = await opened("mail");
    const waiting = await thread.resume();
    expect(types(waiting.events)).toEqual(["input", "model-output", "request"]);
    expect(log.runs).toEqual([]);
    const [request] = await thread.requests();
    expect(request).toMatchObject({
      requestId: "mail-1:approval",
      kind: "approval",
      callId: "mail-1",
      tool: "send_mail",
      arguments: { to: "ada@example.org", subject: "Invoice" },
      origin: "tools",
    });

    // Resuming a waiting turn runs nothing and records nothing.
    expect(types((await thread.resume()).events)).toEqual(["input", "model-output", "request"]);

    const answered = await thread.answer("mail-1:approval", { approved: true });
    expect(types(answered.events)).toEqual([
      "input",
      "model-output",
      "request",
      "response",
      "tool-output",
      "model-output",
    ]);
    expect(answered.byType(ToolOutput)[0]).toMatchObject({
      callId: "mail-1",
      text: 'Sent "Invoice" to ada@example.org.',
    });
    expect(log.runs).toEqual(["send_mail ada@example.org"]);
    expect(await thread.requests()).toEqual([]);

    const next = await thread.send(Input({ payload: "Hi.", model: CLERK_MODEL }));
    expect(types(next.events).slice(6)).toEqual(["input", "model-output"]);
  });

  it("denied, never runs, and the model reads that it was denied and why", async () => {
    const { thread, log, model } = await opened("mail");
    await thread.resume();
    const trace = await thread.answer("mail-1:approval", { approved: false, reason: "not before Monday" });
    expect(log.runs).toEqual([]);
    const [result] = trace.byType(ToolOutput);
    expect(result!.error).toContain("A person denied this call of send_mail: not before Monday");
    const read = JSON.stringify(model.requests.at(-1)!.messages);
    expect(read).toContain("denied this call of send_mail: not before Monday");
  });

  it("refuses an unknown id, a payload that does not fit and a second answer, recording nothing", async () => {
    const { thread } = await opened("mail");
    await thread.resume();
    const before = (await thread.trace()).length;
    await expect(thread.answer("mail-9:approval", { approved: true })).rejects.toThrow(
      /No request "mail-9:approval" waits.*waiting: mail-1:approval/,
    );
    await expect(thread.answer("mail-1:approval", { approved: "yes" })).rejects.toThrow(AnswerRefusedError);
    await expect(thread.answer("mail-1:approval", { approved: "yes" })).rejects.toThrow(/approved/);
    expect((await thread.trace()).length).toBe(before);
    await thread.answer("mail-1:approval", { approved: true });
    const after = (await thread.trace()).length;
    await expect(thread.answer("mail-1:approval", { approved: false })).rejects.toThrow(/answered already/);
    expect((await thread.trace()).length).toBe(after);
  });
});

describe("a tool that asks a question", () => {
  it("records its schema, and gets the answer parsed when the turn runs on", async () => {
    const { thread, log } = await opened("booking");
    await thread.resume();
    const [request] = await thread.requests();
    expect(request).toMatchObject({ requestId: "book-1:ask:0", kind: "question", callId: "book-1" });
    expect(request!.text).toBe("Which date suits you for the bulky waste pickup?");
    expect(request!.schema).toMatchObject({ type: "object", required: ["date"] });
    await expect(thread.answer("book-1:ask:0", { date: "tomorrow" })).rejects.toThrow(/does not fit its schema/);
    const trace = await thread.answer("book-1:ask:0", { date: "2026-12-01" });
    expect(log.runs).toEqual(["book_slot 2026-12-01"]);
    expect(trace.byType(ToolOutput)[0]!.text).toBe("Booked the bulky waste pickup on 2026-12-01.");
    expect(trace.byType(Response)).toEqual([
      expect.objectContaining({ requestId: "book-1:ask:0", payload: { date: "2026-12-01" }, callId: "book-1" }),
    ]);
  });

  it("whose deadline passes ends the turn with one NoAnswerError Failure, and refuses a late answer", async () => {
    const { thread, log, clock } = await opened("booking", { deadlineSeconds: 60 });
    await thread.resume();
    clock.advance(59_999);
    expect(types((await thread.resume()).events)).toEqual(["input", "model-output", "request"]);
    clock.advance(1);
    await expect(thread.resume()).rejects.toThrow(NoAnswerError);
    await expect(thread.resume()).rejects.toThrow(/No answer to request "book-1:ask:0"/);
    const trace = await thread.trace();
    expect(types(trace.events)).toEqual(["input", "model-output", "request", "failure"]);
    expect(trace.byType(Failure)[0]).toMatchObject({ error: "NoAnswerError", callId: "book-1" });
    await expect(thread.answer("book-1:ask:0", { date: "2026-12-01" })).rejects.toThrow(AnswerRefusedError);
    expect(log.runs).toEqual([]);
  });

  it("whose deadline passes with a default answer records it as the Response, and the turn goes on", async () => {
    const { thread, log, clock } = await opened("booking", {
      deadlineSeconds: 60,
      defaultAnswer: { date: "2027-01-04" },
    });
    await thread.resume();
    clock.advance(60_000);
    const trace = await thread.resume();
    expect(types(trace.events)).toEqual([
      "input",
      "model-output",
      "request",
      "response",
      "tool-output",
      "model-output",
    ]);
    expect(trace.byType(Request)[0]!.defaultAnswer).toEqual({ payload: { date: "2027-01-04" } });
    expect(log.runs).toEqual(["book_slot 2027-01-04"]);
  });
});

describe("cancelling a local turn", () => {
  it("while it waits records one CancelledError Failure, closes the request, and the next turn works", async () => {
    const { thread } = await opened("mail");
    await thread.resume();
    await thread.cancel();
    await thread.cancel();
    const trace = await thread.trace();
    expect(types(trace.events)).toEqual(["input", "model-output", "request", "failure"]);
    expect(trace.byType(Failure)[0]).toMatchObject({ error: "CancelledError", message: "The turn was cancelled." });
    expect(await thread.requests()).toEqual([]);
    const next = await thread.send(Input({ payload: "Hi.", model: CLERK_MODEL }));
    expect(types(next.events).slice(4)).toEqual(["input", "model-output"]);
  });

  it("during a model call records one CancelledError Failure and gives the lease up", async () => {
    const controller = new AbortController();
    let entered!: () => void;
    const inCall = new Promise<void>((resolve) => (entered = resolve));
    const model = clerkModel(CLERK_SCRIPTS.mail, async (pass) => {
      if (pass !== 0 || controller.signal.aborted) return;
      entered();
      await new Promise((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    const store = new InMemoryTraceStore();
    const { catalog } = clerkCatalog(store, { script: CLERK_SCRIPTS.mail, model });
    const [thread] = await catalog.open("clerk", Input({ payload: "Mail Ada.", model: CLERK_MODEL }));
    const running = thread.resume({ signal: controller.signal });
    await inCall;
    controller.abort();
    await expect(running).rejects.toThrow();
    const trace = await thread.trace();
    expect(types(trace.events)).toEqual(["input", "failure"]);
    expect(trace.byType(Failure)[0]).toMatchObject({ error: "CancelledError", callId: null, origin: null });
    expect(await store.lease(thread.id)).toBeNull();
  });
});
