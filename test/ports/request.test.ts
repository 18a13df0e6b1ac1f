import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/domain/json.js";
import { appended } from "../../src/domain/lists.js";
import {
  AssistantMessage,
  ChatRequest,
  IMAGE_CHARACTERS,
  ImagePart,
  SystemMessage,
  TextPart,
  ToolDef,
  ToolResult,
  UserMessage,
  type Message,
} from "../../src/ports/index.js";

const PIXEL = new Uint8Array([137, 80, 78, 71]);
const SEARCH = ToolDef({ name: "search", description: "Search.", parameters: { type: "object" } });

function messages(): Message[] {
  return [
    SystemMessage("Answer briefly."),
    UserMessage([TextPart("What is this?"), ImagePart(PIXEL)]),
    AssistantMessage("Let me look.", {
      toolCalls: [{ id: "c1", name: "search", arguments: { query: "dogs" } }],
      reasoning: "Think.",
    }),
    ToolResult("c1", "Dogs pay 100 euros."),
  ];
}

describe("ChatRequest.characters", () => {
  it("counts texts, reasoning, tool calls and tools as JSON, and each image as 6,000", () => {
    const request = new ChatRequest(messages(), [SEARCH]);
    const expected =
      "Answer briefly.".length +
      "What is this?".length +
      IMAGE_CHARACTERS +
      "Let me look.".length +
      "Think.".length +
      "search".length +
      '{"query":"dogs"}'.length +
      "Dogs pay 100 euros.".length +
      "search".length +
      "Search.".length +
      '{"type":"object"}'.length;

    expect(IMAGE_CHARACTERS).toBe(6_000);
    expect(request.characters).toBe(expected);
    expect(request.characters).toBe(6117);
  });

  it("counts a string user message by its length, and an empty request as 0", () => {
    expect(new ChatRequest([UserMessage("four")]).characters).toBe(4);
    expect(new ChatRequest([]).characters).toBe(0);
    expect(new ChatRequest([UserMessage([ImagePart(PIXEL), ImagePart(PIXEL)])]).characters).toBe(12_000);
  });
});

describe("ChatRequest.hash", () => {
  it("is the same across runs: the SHA-256 of the canonical JSON", () => {
    const request = new ChatRequest(messages(), [SEARCH]);

    expect(request.hash).toMatch(/^[0-9a-f]{64}$/);
    // Pinned: a change to the canonical form changes every recorded request hash, and replay compares them.
    expect(request.hash).toBe(createHash("sha256").update(CANONICAL).digest("hex"));
    expect(request.hash).toBe(PINNED_HASH);
    expect(new ChatRequest(messages(), [SEARCH]).hash).toBe(request.hash);
  });

  it("covers an assistant message's providerData, and a message without it hashes as before the field", () => {
    const plain = AssistantMessage("Done.");
    const kept = AssistantMessage("Done.", { providerData: { "openai-responses": { model: "gpt-5", items: [] } } });
    expect(Object.keys(plain)).not.toContain("providerData");
    const withData = new ChatRequest([kept]);
    expect(withData.hash).not.toBe(new ChatRequest([plain]).hash);
    const canonical = canonicalJson({
      messages: [{ class: "AssistantMessage", ...(({ role: _role, ...fields }) => fields)(kept) }],
      tools: [],
    });
    expect(withData.hash).toBe(createHash("sha256").update(canonical).digest("hex"));
  });

  it("does not depend on the key order of tool parameters or call arguments", () => {
    const one = new ChatRequest(
      [AssistantMessage("", { toolCalls: [{ id: "c", name: "t", arguments: { a: 1, b: { x: [1, 2], y: null } } }] })],
      [
        ToolDef({
          name: "t",
          description: "d",
          parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "object" } } },
        }),
      ],
    );
    const other = new ChatRequest(
      [AssistantMessage("", { toolCalls: [{ name: "t", arguments: { b: { y: null, x: [1, 2] }, a: 1 }, id: "c" }] })],
      [
        ToolDef({
          parameters: { properties: { b: { type: "object" }, a: { type: "integer" } }, type: "object" },
          description: "d",
          name: "t",
        }),
      ],
    );

    expect(other.hash).toBe(one.hash);
  });

  it("changes when any content changes", () => {
    const base = messages();
    const change = (index: number, message: Message): Message[] =>
      base.map((original, at) => (at === index ? message : original));
    const variants: ChatRequest[] = [
      new ChatRequest(change(0, SystemMessage("Answer at length.")), [SEARCH]),
      new ChatRequest(change(1, UserMessage([TextPart("What is that?"), ImagePart(PIXEL)])), [SEARCH]),
      new ChatRequest(change(1, UserMessage([TextPart("What is this?"), ImagePart(new Uint8Array([1, 2, 3, 4]))])), [
        SEARCH,
      ]),
      new ChatRequest(change(1, UserMessage([TextPart("What is this?"), ImagePart(PIXEL, { mime: "image/jpeg" })])), [
        SEARCH,
      ]),
      new ChatRequest(change(1, UserMessage([TextPart("What is this?"), ImagePart(PIXEL, { name: "scan.png" })])), [
        SEARCH,
      ]),
      new ChatRequest(change(1, UserMessage([ImagePart(PIXEL), TextPart("What is this?")])), [SEARCH]),
      new ChatRequest(change(1, UserMessage("What is this?")), [SEARCH]),
      new ChatRequest(
        change(
          2,
          AssistantMessage("Let me see.", {
            toolCalls: [{ id: "c1", name: "search", arguments: { query: "dogs" } }],
            reasoning: "Think.",
          }),
        ),
        [SEARCH],
      ),
      new ChatRequest(
        change(
          2,
          AssistantMessage("Let me look.", {
            toolCalls: [{ id: "c2", name: "search", arguments: { query: "dogs" } }],
            reasoning: "Think.",
          }),
        ),
        [SEARCH],
      ),
      new ChatRequest(
        change(
          2,
          AssistantMessage("Let me look.", {
            toolCalls: [{ id: "c1", name: "find", arguments: { query: "dogs" } }],
            reasoning: "Think.",
          }),
        ),
        [SEARCH],
      ),
      new ChatRequest(
        change(
          2,
          AssistantMessage("Let me look.", {
            toolCalls: [{ id: "c1", name: "search", arguments: { query: "cats" } }],
            reasoning: "Think.",
          }),
        ),
        [SEARCH],
      ),
      new ChatRequest(
        change(
          2,
          AssistantMessage("Let me look.", {
            toolCalls: [{ id: "c1", name: "search", arguments: { query: "dogs" } }],
            reasoning: null,
          }),
        ),
        [SEARCH],
      ),
      new ChatRequest(change(3, ToolResult("c9", "Dogs pay 100 euros.")), [SEARCH]),
      new ChatRequest(change(3, ToolResult("c1", "Dogs pay 101 euros.")), [SEARCH]),
      new ChatRequest([...base].reverse(), [SEARCH]),
      new ChatRequest(base.slice(0, 3), [SEARCH]),
      new ChatRequest(base, []),
      new ChatRequest(base, [{ ...SEARCH, name: "find" }]),
      new ChatRequest(base, [{ ...SEARCH, description: "Find." }]),
      new ChatRequest(base, [{ ...SEARCH, parameters: { type: "object", properties: {} } }]),
      new ChatRequest(base, [{ ...SEARCH, elements: { document: ["document"] } }]),
      new ChatRequest(base, [{ ...SEARCH, results: ["handle"] }]),
    ];
    const hashes = new Set([new ChatRequest(base, [SEARCH]).hash, ...variants.map((variant) => variant.hash)]);

    expect(hashes.size).toBe(variants.length + 1);
  });
});

/** The hash as it was always taken: SHA-256 over the whole request's canonical JSON at once. */
const whole = (request: ChatRequest) => createHash("sha256").update(canonicalJson(request.toCanonical())).digest("hex");

describe("ChatRequest.hash, going on from earlier requests", () => {
  it("is the hash of the whole text when requests share first messages, change one, drop some, or interleave", () => {
    // Tool results of 2 KB: a thread of them passes the size at which hash states are kept (16 KB).
    const big = (turn: number) => `result ${turn} `.repeat(200);
    const threads = [0, 1].map((thread): Message[] => [
      SystemMessage(`Prompt ${thread}.`),
      UserMessage(`Question ${thread}?`),
    ]);
    const requests: ChatRequest[] = [];
    for (let pass = 0; pass < 45; pass++) {
      for (const [thread, messages] of threads.entries()) {
        messages.push(
          AssistantMessage("", { toolCalls: [{ id: `c${pass}`, name: "search", arguments: { pass, thread } }] }),
          ToolResult(`c${pass}`, big(pass)),
        );
        // A new object for the prompt each time (as a build makes it), equal to the one before.
        messages[0] = SystemMessage(`Prompt ${thread}.`);
        // Now and then a result in the middle is shrunk, or the first ones are dropped.
        if (pass % 7 === 3) messages[5] = ToolResult("c1", "shrunk");
        if (pass % 11 === 10) messages.splice(1, 4);
        requests.push(new ChatRequest([...messages], [SEARCH]));
        requests.push(new ChatRequest(messages.slice(0, messages.length - 2), pass % 2 === 0 ? [SEARCH] : []));
      }
    }
    requests.push(new ChatRequest([], [SEARCH]), new ChatRequest([]));
    // Messages the usual way and otherwise: parts, reasoning, a missing or an extra field.
    const unusual = [
      ...messages(),
      AssistantMessage("Sure.", { reasoning: "Because." }),
      { ...ToolResult("c1", "found"), note: "extra" },
      { role: "assistant", content: "No calls.", toolCalls: [{ id: "c", name: "t", arguments: { b: 1, a: [2] } }] },
      { role: "user", content: "Hi.", reasoning: undefined },
    ] as Message[];
    requests.push(new ChatRequest(unusual, [SEARCH]), new ChatRequest(unusual.slice(4), [SEARCH]));

    expect(requests.map((request) => request.hash)).toEqual(requests.map(whole));
    // The characters too go on from earlier requests (those of 64 messages or more): the same as counting each message.
    const apart = (request: ChatRequest) =>
      request.messages.reduce((sum, message) => sum + new ChatRequest([message]).characters, 0) +
      new ChatRequest([], request.tools).characters;
    expect(requests.some((request) => request.messages.length >= 64)).toBe(true);
    expect(requests.map((request) => request.characters)).toEqual(requests.map(apart));
  });
});

describe("ChatRequest.hash, going on from what a list kept of another", () => {
  it("is the hash of the whole text for a list that kept the first messages of one hashed before and changed the next", () => {
    // Results of 16 KB: a hash state is kept after each, so the hash goes on from right where the lists part.
    const result = (turn: number, text = `result ${turn} `.repeat(1_500)) => ToolResult(`c${turn}`, text);
    const turns = Array.from({ length: 8 }, (_, turn) => [
      AssistantMessage("", { toolCalls: [{ id: `c${turn}`, name: "search", arguments: { turn } }] }),
      result(turn),
    ]).flat();
    const first = appended<Message>([], [SystemMessage("Prompt."), UserMessage("Question?"), ...turns]);
    // The result at 7 shrunk: the first 7 messages kept, the rest laid out again (the same objects after it).
    const second = appended(first, [result(2, "shrunk"), ...first.slice(8)], 7);
    const third = appended(second, [result(9)]);
    const requests = [first, second, third].map((messages) => new ChatRequest(messages, [SEARCH]));
    expect(requests.map((request) => request.hash)).toEqual(requests.map(whole));
  });
});

const PINNED_HASH = "72f138281922de11314931ca8d4fca850aefe1ff2889e5c9d21e4ba60eea346e";

// The canonical JSON of messages(): keys sorted, no whitespace, each message and part named by its class, bytes as base64.
const CANONICAL =
  '{"messages":[{"class":"SystemMessage","content":"Answer briefly."},{"class":"UserMessage","content":[' +
  '{"class":"TextPart","text":"What is this?"},{"class":"ImagePart","data":"iVBORw==","mime":"image/png","name":null}]},' +
  '{"class":"AssistantMessage","content":"Let me look.","reasoning":"Think.","toolCalls":[{"arguments":{"query":"dogs"},"id":"c1","name":"search"}]},' +
  '{"class":"ToolResult","content":"Dogs pay 100 euros.","toolCallId":"c1"}],' +
  '"tools":[{"class":"ToolDef","description":"Search.","elements":{},"name":"search","parameters":{"type":"object"},"results":[]}]}';
