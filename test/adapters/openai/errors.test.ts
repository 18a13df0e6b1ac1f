import { APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/adapters/openai/chat-model.js";
import { ModelRequestError, retryAfterSeconds } from "../../../src/adapters/openai/errors.js";
import { CallerError } from "../../../src/domain/errors.js";
import { ChatRequest, TransientError, UserMessage } from "../../../src/ports/index.js";
import { CompatibleServer } from "../../fixtures/openai-compatible-server.js";

const REQUEST = new ChatRequest([UserMessage("hi")]);

const server = CompatibleServer.forFile();

async function failure(model: OpenAIChatModel): Promise<unknown> {
  return model.complete(REQUEST).then(
    () => {
      throw new Error("the call succeeded; it should have failed");
    },
    (error: unknown) => error,
  );
}

describe("OpenAIChatModel error mapping", () => {
  it("maps 429 to TransientError with the retry-after seconds", async () => {
    server.reply({
      status: 429,
      headers: { "retry-after": "3" },
      json: { error: { message: "Rate limit reached", type: "rate_limit" } },
    });

    const error = await failure(new OpenAIChatModel(server.client(), { model: "town-model" }));

    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).retryAfter).toBe(3);
    expect((error as TransientError).retryable).toBe(true);
    expect((error as Error).message).toMatch(/town-model failed with 429: Rate limit reached\. .*wait 3 s/);
    expect(server.requests).toHaveLength(1);
  });

  it("prefers retry-after-ms, in seconds", async () => {
    server.reply({
      status: 429,
      headers: { "retry-after-ms": "1500", "retry-after": "9" },
      json: { error: { message: "slow down" } },
    });

    const error = await failure(new OpenAIChatModel(server.client(), { model: "town-model" }));

    expect((error as TransientError).retryAfter).toBe(1.5);
  });

  it.each([408, 409, 500, 502, 503])("maps %i to TransientError", async (status) => {
    server.reply({ status, json: { error: { message: `status ${status}` } } });

    const error = await failure(new OpenAIChatModel(server.client(), { model: "town-model" }));

    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).retryAfter).toBeNull();
    expect((error as Error).message).toContain(`status ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it("maps 400 to a permanent ModelRequestError that keeps the API's message and status", async () => {
    server.reply({
      status: 400,
      json: {
        error: {
          message: "Invalid schema for function 'search'",
          type: "invalid_request_error",
          code: "invalid_schema",
        },
      },
    });

    const error = await failure(new OpenAIChatModel(server.client(), { model: "town-model" }));

    expect(error).toBeInstanceOf(ModelRequestError);
    expect(error).toBeInstanceOf(CallerError);
    expect(error).not.toBeInstanceOf(TransientError);
    expect(error).toMatchObject({
      status: 400,
      apiMessage: "Invalid schema for function 'search'",
      code: "invalid_schema",
      retryable: false,
    });
    expect((error as Error).message).toMatch(
      /refused the call of town-model with 400: Invalid schema for function 'search'\. /,
    );
  });

  it.each([
    [401, /API key/],
    [404, /model name and the client's baseURL/],
    [422, /cannot help/],
  ])("maps %i to ModelRequestError with a hint", async (status, hint) => {
    server.reply({ status, json: { error: { message: `status ${status}` } } });

    const error = await failure(new OpenAIChatModel(server.client(), { model: "town-model" }));

    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).status).toBe(status);
    expect((error as Error).message).toMatch(hint);
  });

  it("maps a refused connection on a closed port to TransientError", async () => {
    const closed = await CompatibleServer.start();
    const client = closed.client();
    await closed.close();

    const error = await failure(new OpenAIChatModel(client, { model: "town-model" }));

    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toMatch(/could not be reached: .*ECONNREFUSED/);
  });

  it("maps the client's timeout to TransientError", async () => {
    server.reply({ silent: true });

    const error = await failure(new OpenAIChatModel(server.client({ timeout: 200 }), { model: "town-model" }));

    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toMatch(/timed out/i);
  });

  it("lets a caller's abort propagate unchanged", async () => {
    server.reply({ silent: true });
    const controller = new AbortController();
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const call = model.complete(REQUEST, { signal: controller.signal });
    controller.abort();

    const error = await call.catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(TransientError);
    expect(error).toBeInstanceOf(APIUserAbortError);
  });
});

describe("retryAfterSeconds", () => {
  it("reads seconds, milliseconds and HTTP dates, and nothing else", () => {
    expect(retryAfterSeconds(new Headers({ "retry-after": "12" }))).toBe(12);
    expect(retryAfterSeconds(new Headers({ "retry-after-ms": "250" }))).toBe(0.25);
    expect(retryAfterSeconds(new Headers({ "retry-after": new Date(0).toUTCString() }))).toBe(0);
    expect(retryAfterSeconds(new Headers({ "retry-after": "soon" }))).toBeNull();
    expect(retryAfterSeconds(new Headers())).toBeNull();
    expect(retryAfterSeconds(undefined)).toBeNull();
  });
});
