/**
 * The scripted model of the live-latency bench: an OpenAI-compatible chat-completions server over HTTP whose
 * every streamed text delta is the time it was sent (`@<milliseconds> `, on the clock `now`), so a client of
 * the app reads each fragment's latency off the fragment itself. It waits `firstMilliseconds` before the
 * first delta, as a served model takes a moment to start, and `gapMilliseconds` between deltas. A turn's
 * prompt names its stream (`stream=<label>`); the server keeps, per label, when the request arrived and
 * when the first delta left.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { chunk, usageChunk } from "../../test/fixtures/openai-compatible-server.js";

/** Milliseconds on a clock every process of one machine shares: the process's time origin plus its monotonic time. */
export const now = (): number => performance.timeOrigin + performance.now();

/** The prompt of a turn whose fragments the server files under `label`. */
export const streamPrompt = (label: string): string => `Tell me something, slowly (stream=${label}).`;

/** The send times in a fragment's text, in milliseconds: one per delta it carries. */
export function stampsOf(text: string): number[] {
  return [...text.matchAll(/@(\d+\.\d+) /g)].map((match) => Number(match[1]));
}

/** How the server streams. */
export interface StampingOptions {
  /** Deltas per answer. */
  fragments: number;
  /** Milliseconds from the request to the first delta. */
  firstMilliseconds: number;
  /** Milliseconds between deltas. */
  gapMilliseconds: number;
}

/** When one stream's request arrived and its first delta left, on `now`'s clock. */
export interface ServerTiming {
  arrivedAt: number;
  firstSentAt: number | null;
}

/** The stamping server: its base URL, its timings by stream label, and how to stop it. */
export class StampingServer {
  /** The timings of the streams whose prompt named a label. */
  readonly timings = new Map<string, ServerTiming>();
  private readonly sockets = new Set<import("node:net").Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly options: StampingOptions,
  ) {
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    server.on("request", (request, response) => this.handle(request, response));
  }

  /** Listen on a free port of 127.0.0.1. */
  static async start(options: StampingOptions): Promise<StampingServer> {
    // noDelay: each delta leaves in its own TCP segment at once (Node's default; said here because it matters).
    const self = new StampingServer(http.createServer({ noDelay: true }), options);
    await new Promise<void>((resolve) => self.server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  /** The base URL an OpenAI client points at (OPENAI_BASE_URL). */
  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const arrivedAt = now();
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (piece: string) => (text += piece));
    request.on("end", () => void this.stream(labelOf(text), arrivedAt, response));
  }

  private async stream(label: string | null, arrivedAt: number, response: http.ServerResponse): Promise<void> {
    const timing: ServerTiming = { arrivedAt, firstSentAt: null };
    if (label !== null) this.timings.set(label, timing);
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.flushHeaders();
    const write = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    await sleep(this.options.firstMilliseconds);
    for (let index = 0; index < this.options.fragments; index++) {
      if (index > 0) await sleep(this.options.gapMilliseconds);
      if (response.destroyed) return;
      const sentAt = now();
      timing.firstSentAt ??= sentAt;
      write(chunk({ ...(index === 0 ? { role: "assistant" } : {}), content: `@${sentAt.toFixed(3)} ` }));
    }
    write(chunk({}, "stop"));
    write(usageChunk(20, this.options.fragments));
    response.end("data: [DONE]\n\n");
  }
}

/** The stream label the request's last user message names, if any. */
function labelOf(body: string): string | null {
  try {
    const { messages = [] } = JSON.parse(body) as { messages?: { role: string; content?: unknown }[] };
    const user = messages.findLast((message) => message.role === "user");
    const content = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
    return /stream=([\w-]+)/.exec(content)?.[1] ?? null;
  } catch {
    return null;
  }
}
