// A turn of tutorial 2's town assistant (search, then an answer citing a passage) translated into the AI SDK's
// UI message stream protocol and read back by the `ai` package's own reader: the message it builds holds the
// tool call with its result, the streamed text, and the cited passage as a source document; every chunk
// passes the package's chunk schema.
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { InMemoryTraceStore } from "../../src/adapters/index.js";
import { Input, ModelOutput } from "../../src/domain/index.js";
import { UIMessageTranslator, type UIMessageChunk as Chunk } from "../../src/app/ui-message-stream.js";
import { ANSWER, StreamingModel, appCatalog } from "../fixtures/app/streaming.js";

/** The chunks of the thread's one turn, the answer's text arriving as two fragments, as the model wrote it. */
async function turnChunks(): Promise<Chunk[]> {
  const catalog = appCatalog(new InMemoryTraceStore(), new StreamingModel({ pause: 0 }));
  const [thread] = await catalog.open("assistant", Input({ payload: "Bulky waste?", model: "scripted" }));
  const trace = await thread.resume();
  const translator = new UIMessageTranslator("message-1");
  const chunks = translator.start();
  for (const entry of trace.entries) {
    const key = String(entry.position);
    const event = entry.event;
    if (ModelOutput.is(event) && event.content !== "") {
      const half = Math.floor(ANSWER.length / 2);
      const base = { threadId: thread.id, stream: "main", node: "model", key, attempt: 1 } as const;
      chunks.push(...translator.fragment({ ...base, index: 0, kind: "text", text: ANSWER.slice(0, half) }));
      chunks.push(...translator.fragment({ ...base, index: 1, kind: "text", text: ANSWER.slice(half) }));
    }
    chunks.push(...translator.event(event));
  }
  return [...chunks, ...translator.finish()];
}

async function messageOf(chunks: Chunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last!;
}

describe("the UI message stream of a turn", () => {
  it("reads back, by the ai package, as the tool call, the streamed answer and the cited passage", async () => {
    const chunks = await turnChunks();
    for (const chunk of chunks)
      expect((await uiMessageChunkSchema().validate?.(chunk))?.success, chunk.type).toBe(true);
    const message = await messageOf(chunks);
    const parts = message.parts;
    const tool = parts.find((part) => part.type.startsWith("tool-"));
    expect(tool).toMatchObject({ type: "tool-search", state: "output-available", input: { query: "bulky waste" } });
    const text = parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text);
    expect(text).toEqual([ANSWER]);
    const sources = parts.filter((part) => part.type === "source-document");
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({
      sourceId: expect.stringMatching(/#2$/),
      title: expect.stringMatching(/^\[2\] /),
    });
  });
});
