import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/adapters/openai/chat-model.js";
import { ModelOutput } from "../../../src/domain/events.js";
import { ValueError } from "../../../src/domain/errors.js";
import { appended } from "../../../src/domain/lists.js";
import {
  AssistantMessage,
  ChatRequest,
  ImagePart,
  type Message,
  SystemMessage,
  TextPart,
  ToolDef,
  ToolResult,
  UserMessage,
  UNPARSED_ARGUMENTS,
} from "../../../src/ports/index.js";
import { CompatibleServer, completion } from "../../fixtures/openai-compatible-server.js";

const SEARCH = ToolDef({
  name: "search",
  description: "Search the town documents.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  elements: { document: ["document"] },
  results: ["handle"],
});
const PIXEL = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

const server = CompatibleServer.forFile();

describe("OpenAIChatModel.complete", () => {
  it("maps a plain answer to a ModelOutput with the call's facts", async () => {
    server.reply({ json: completion({ content: "Bulky waste is picked up four times a year [2]." }) });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });
    const request = new ChatRequest([SystemMessage("Answer."), UserMessage("How often?")]);

    const output = await model.complete(request);

    expect(ModelOutput.is(output)).toBe(true);
    expect(output).toMatchObject({
      content: "Bulky waste is picked up four times a year [2].",
      markers: [],
      toolCalls: [],
      reasoning: null,
      model: "town-model",
      finishReason: "stop",
      usage: { promptTokens: 11, completionTokens: 7 },
      promptCharacters: request.characters,
      requestHash: request.hash,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.url).toBe("/v1/chat/completions");
  });

  it("sends the model named by the call, and records that name", async () => {
    server.reply({ json: completion({ content: "ok" }) });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const output = await model.complete(new ChatRequest([UserMessage("hi")]), { model: "other-model" });

    expect(server.lastBody.model).toBe("other-model");
    expect(output.model).toBe("other-model");
    expect(model.resolve(null)).toBe("town-model");
  });

  it("parses the JSON arguments of a tool call and keeps its id", async () => {
    server.reply({
      json: completion(
        {
          tool_calls: [
            {
              id: "call_abc",
              type: "function",
              function: { name: "search", arguments: '{"query":"bulky waste","limit":2}' },
            },
          ],
        },
        { finishReason: "tool_calls" },
      ),
    });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const output = await model.complete(new ChatRequest([UserMessage("bulky waste?")], [SEARCH]));

    expect(output.content).toBe("");
    expect(output.finishReason).toBe("tool_calls");
    expect(output.toolCalls).toEqual([
      { id: "call_abc", name: "search", arguments: { query: "bulky waste", limit: 2 } },
    ]);
  });

  it("keeps arguments that are not JSON recoverable under UNPARSED_ARGUMENTS, and sends them back as written", async () => {
    server.reply({
      json: completion({
        tool_calls: [{ id: "call_bad", type: "function", function: { name: "search", arguments: "{query: bulky" } }],
      }),
    });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    const output = await model.complete(new ChatRequest([UserMessage("bulky waste?")], [SEARCH]));
    expect(output.toolCalls).toEqual([
      { id: "call_bad", name: "search", arguments: { [UNPARSED_ARGUMENTS]: "{query: bulky" } },
    ]);

    server.reply({ json: completion({ content: "ok" }) });
    await model.complete(
      new ChatRequest([AssistantMessage("", { toolCalls: output.toolCalls }), ToolResult("call_bad", "error")]),
    );
    const sent = server.lastBody.messages as { tool_calls?: { function: { arguments: string } }[] }[];
    expect(sent[0]?.tool_calls?.[0]?.function.arguments).toBe("{query: bulky");
  });

  it("gives a tool call without an id one derived from the request, the same on a retry", async () => {
    const reply = {
      json: completion({ tool_calls: [{ id: "", type: "function", function: { name: "search", arguments: "{}" } }] }),
    };
    server.reply(reply, reply);
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });
    const request = new ChatRequest([UserMessage("bulky waste?")], [SEARCH]);

    const first = await model.complete(request);
    const again = await model.complete(request);

    expect(first.toolCalls[0]?.id).toBe(`call_${request.hash.slice(0, 16)}_1`);
    expect(again.toolCalls[0]?.id).toBe(first.toolCalls[0]?.id);
  });

  it("reads the reasoning a compatible server gives as reasoning_content or reasoning", async () => {
    server.reply(
      { json: completion({ content: "42", reasoning_content: "Six times seven." }) },
      { json: completion({ content: "42", reasoning: "Seven times six." }) },
    );
    const model = new OpenAIChatModel(server.client(), { model: "thinker" });
    const request = new ChatRequest([UserMessage("6*7?")]);

    expect((await model.complete(request)).reasoning).toBe("Six times seven.");
    expect((await model.complete(request)).reasoning).toBe("Seven times six.");
  });

  it("sends an image part as a base64 data URL", async () => {
    server.reply({ json: completion({ content: "A PNG." }) });
    const model = new OpenAIChatModel(server.client(), { model: "vision" });

    await model.complete(
      new ChatRequest([
        UserMessage([TextPart("What is this?"), ImagePart(PIXEL, { mime: "image/png", name: "scan.png" })]),
      ]),
    );

    expect((server.lastBody.messages as unknown[])[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(PIXEL).toString("base64")}` } },
      ],
    });
  });

  it("sends exactly this body for a request that holds every message kind", async () => {
    server.reply({ json: completion({ content: "done" }) });
    const model = new OpenAIChatModel(server.client(), {
      model: "town-model",
      settings: { temperature: 0, max_completion_tokens: 256 },
    });
    const request = new ChatRequest(
      [
        SystemMessage("You are the town assistant."),
        UserMessage("Bulky waste?"),
        AssistantMessage("", {
          toolCalls: [{ id: "call_1", name: "search", arguments: { query: "bulky waste" } }],
          reasoning: "Search first.",
        }),
        ToolResult("call_1", '<passage id="2" cite="[2]">Four times a year.</passage>'),
        AssistantMessage("Four times a year [2]."),
        UserMessage([TextPart("And this?"), ImagePart(PIXEL, { mime: "image/jpeg" })]),
      ],
      [SEARCH],
    );

    await model.complete(request);

    const { messages: _messages, tools: _tools, ...settings } = server.lastBody;
    expect(settings).toStrictEqual((await model.prepare(request)).settings);
    expect(server.lastBody).toStrictEqual({
      model: "town-model",
      temperature: 0,
      max_completion_tokens: 256,
      messages: [
        { role: "system", content: "You are the town assistant." },
        { role: "user", content: "Bulky waste?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "search", arguments: '{"query":"bulky waste"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '<passage id="2" cite="[2]">Four times a year.</passage>' },
        { role: "assistant", content: "Four times a year [2]." },
        {
          role: "user",
          content: [
            { type: "text", text: "And this?" },
            {
              type: "image_url",
              image_url: { url: `data:image/jpeg;base64,${Buffer.from(PIXEL).toString("base64")}` },
            },
          ],
        },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "search",
            description: "Search the town documents.",
            parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
          },
        },
      ],
    });
  });

  it("sends reasoning back in the field the options name", async () => {
    server.reply({ json: completion({ content: "ok" }) });
    const model = new OpenAIChatModel(server.client(), { model: "thinker", reasoningField: "reasoning_content" });

    await model.complete(
      new ChatRequest([UserMessage("q"), AssistantMessage("a", { reasoning: "because" }), UserMessage("q2")]),
    );

    expect((server.lastBody.messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: "a",
      reasoning_content: "because",
    });
  });

  it("sends the same message objects again as each model's reasoning field maps them", async () => {
    // A thread's next call sends the messages of the last one again: each is mapped once for each field.
    const messages = [UserMessage("q"), AssistantMessage("a", { reasoning: "because" })];
    const keeps = new OpenAIChatModel(server.client(), { model: "thinker", reasoningField: "reasoning" });
    const drops = new OpenAIChatModel(server.client(), { model: "plain" });
    const sent: unknown[] = [];
    for (const model of [keeps, drops, keeps]) {
      server.reply({ json: completion({ content: "ok" }) });
      await model.complete(new ChatRequest([...messages, UserMessage("q2")]));
      sent.push((server.lastBody.messages as unknown[])[1]);
    }
    const kept = { role: "assistant", content: "a", reasoning: "because" };
    expect(sent).toEqual([kept, { role: "assistant", content: "a" }, kept]);
  });

  it("writes the body JSON.stringify would write, going on from the last body's messages where the list extends them", async () => {
    const model = new OpenAIChatModel(server.client(), { model: "town-model", settings: { temperature: 0 } });
    const first: Message[] = [SystemMessage("You are the town assistant."), UserMessage('Bulky "waste" (Sperrmüll)?')];
    // The context builder makes a thread's next list by appending to the last (domain/lists.ts): the body goes on from it.
    const next = appended(first, [
      AssistantMessage("", { toolCalls: [{ id: "call_1", name: "search", arguments: { query: "bulky waste" } }] }),
      ToolResult("call_1", "<passage>Four times a year.</passage>"),
    ]);
    const other = [UserMessage("Another thread.")];
    for (const messages of [first, next, next, other]) {
      server.reply({ json: completion({ content: "ok" }) });
      await model.complete(new ChatRequest(messages, [SEARCH]));
    }

    // The messages as chat completions writes them, each key in its place.
    const firstSent = [
      { role: "system", content: "You are the town assistant." },
      { role: "user", content: 'Bulky "waste" (Sperrmüll)?' },
    ];
    const nextSent = [
      ...firstSent,
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "search", arguments: '{"query":"bulky waste"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "<passage>Four times a year.</passage>" },
    ];
    const tools = [
      {
        type: "function",
        function: { name: SEARCH.name, description: SEARCH.description, parameters: SEARCH.parameters },
      },
    ];
    const expected = [firstSent, nextSent, nextSent, [{ role: "user", content: "Another thread." }]].map((messages) =>
      JSON.stringify({ temperature: 0, model: "town-model", messages, tools }),
    );
    expect(server.requests.map((request) => request.text)).toEqual(expected);
  });

  it("turns the client's own retries off: a failed call reaches the server once", async () => {
    server.reply({ status: 503, json: { error: { message: "overloaded" } } });
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });

    await expect(model.complete(new ChatRequest([UserMessage("hi")]))).rejects.toThrow(/overloaded/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers["x-stainless-retry-count"]).toBe("0");
  });
});

describe("OpenAIChatModel.prepare", () => {
  it("shows the request as sent, its settings and the changes, without calling", async () => {
    const model = new OpenAIChatModel(server.client(), { model: "town-model", settings: { temperature: 0.2 } });
    const request = new ChatRequest(
      [
        UserMessage([TextPart("Look"), ImagePart(PIXEL, { name: "scan.png" })]),
        AssistantMessage("seen", { reasoning: "thinking" }),
      ],
      [SEARCH],
    );

    const prepared = await model.prepare(request, { model: "other" });

    expect(server.requests).toHaveLength(0);
    expect(prepared.settings).toEqual({ model: "other", temperature: 0.2 });
    expect(prepared.changes).toEqual([
      "reasoning dropped: chat completions has no field for it",
      "image names dropped: chat completions sends no name with an image",
    ]);
    expect(prepared.request.messages[1]).toEqual(AssistantMessage("seen"));
    expect(prepared.request.messages[0]).toEqual(UserMessage([TextPart("Look"), ImagePart(PIXEL)]));
    expect(prepared.request.tools).toEqual([SEARCH]);
    expect(prepared.request.hash).not.toBe(request.hash);
  });

  it("changes nothing in a request it sends as it is", async () => {
    const model = new OpenAIChatModel(server.client(), { model: "town-model" });
    const request = new ChatRequest([SystemMessage("s"), UserMessage("u")], [SEARCH]);

    const prepared = await model.prepare(request);

    expect(prepared.changes).toEqual([]);
    expect(prepared.request.hash).toBe(request.hash);
    expect(prepared.settings).toEqual({ model: "town-model" });
  });
});

describe("OpenAIChatModel options", () => {
  it("refuses a bad configuration at construction", () => {
    const client = server.client();
    expect(() => new OpenAIChatModel(client, { model: "" })).toThrow(ValueError);
    expect(() => new OpenAIChatModel(client, { model: "m", settings: { messages: [], stream: true } })).toThrow(
      /messages, stream/,
    );
    expect(() => new OpenAIChatModel(client, { model: "m", reasoningField: "thoughts" as never })).toThrow(
      /reasoningField/,
    );
    expect(new OpenAIChatModel(client, { model: "m" }).model).toBe("m");
  });
});
