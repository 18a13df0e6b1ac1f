/** A client of the app's event streams for tests: real HTTP, the SSE format parsed by hand. */
import { inserted } from "../../src/domain/trace.js";

/** One message of an event stream. */
export interface SseMessage {
  event: string;
  id: string | null;
  data: Record<string, unknown>;
}

/**
 * Read the event stream of `url` until `stop` accepts a message (it is included) or the stream ends.
 * Returns the messages in arrival order; the connection is closed on return.
 */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  stop: (message: SseMessage, seen: SseMessage[]) => boolean = (message) => message.event === "end",
): Promise<SseMessage[]> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  const seen: SseMessage[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message = parse(block);
        if (!message) continue;
        seen.push(message);
        if (stop(message, seen)) return seen;
      }
    }
    return seen;
  } finally {
    controller.abort();
  }
}

function parse(block: string): SseMessage | null {
  let event = "message";
  let id: string | null = null;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":") || line === "") continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  return { event, id, data: JSON.parse(data.join("\n")) as Record<string, unknown> };
}

/** The text of a ModelOutput event with its markers put back, as the model wrote it. */
export function writtenText(event: Record<string, unknown>): string {
  const markers = (event.markers as { at: number; text: string }[]).map((marker) => [marker.at, marker.text] as const);
  return inserted(String(event.content), markers);
}

/**
 * Check the order the follow promises: each ModelOutput comes after its call's fragments, whose text
 * (of the latest attempt) equals the output as written. Returns the outputs' texts.
 */
export function checkFragments(messages: SseMessage[]): { texts: string[]; attempts: number[][] } {
  const texts: string[] = [];
  const attempts: number[][] = [];
  for (const [index, message] of messages.entries()) {
    if (message.event !== "event" || message.data.type !== "model_output") continue;
    const key = String(message.data.seq);
    const fragments = messages
      .slice(0, index)
      .filter((earlier) => earlier.event === "fragment" && earlier.data.key === key && earlier.data.kind === "text");
    const latest = Math.max(0, ...fragments.map((fragment) => Number(fragment.data.attempt)));
    const text = fragments
      .filter((fragment) => fragment.data.attempt === latest)
      .map((fragment) => String(fragment.data.text))
      .join("");
    if (text !== writtenText(message.data))
      throw new Error(`The fragments of call ${key} read "${text}", the output "${writtenText(message.data)}".`);
    texts.push(text);
    attempts.push([...new Set(fragments.map((fragment) => Number(fragment.data.attempt)))]);
  }
  const late = messages.findIndex(
    (message) =>
      message.event === "fragment" &&
      messages
        .slice(0, messages.indexOf(message))
        .some(
          (earlier) =>
            earlier.event === "event" &&
            earlier.data.type === "model_output" &&
            String(earlier.data.seq) === message.data.key,
        ),
  );
  if (late >= 0) throw new Error(`A fragment arrived after its call's ModelOutput: ${JSON.stringify(messages[late])}.`);
  return { texts, attempts };
}
