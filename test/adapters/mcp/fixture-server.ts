// An MCP server made with the SDK's McpServer class: stdio by default, Streamable HTTP with --http PORT.
// FIXTURE_LOG names a file where it writes a line per call and per cancellation (what the server saw);
// FIXTURE_RELEASE a file whose existence ends a call of `slow`; FIXTURE_VARIANT=changed changes its tool list.
import { appendFileSync, existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const changed = process.env.FIXTURE_VARIANT === "changed";

/** Write one line of what the server saw to FIXTURE_LOG. */
function log(line: string): void {
  if (process.env.FIXTURE_LOG) appendFileSync(process.env.FIXTURE_LOG, `${line} ${process.pid}\n`);
}

/** Resolve when FIXTURE_RELEASE exists; reject when the client cancels the request. */
function released(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      if (!process.env.FIXTURE_RELEASE || !existsSync(process.env.FIXTURE_RELEASE)) return;
      clearInterval(poll);
      resolve();
    }, 20);
    signal.addEventListener("abort", () => {
      clearInterval(poll);
      log("cancelled slow");
      reject(new Error("cancelled"));
    });
  });
}

function build() {
  const server = new McpServer({ name: "fixture", version: "1" });
  server.registerTool(
    "add",
    {
      description: changed ? "Add two numbers, exactly." : "Add two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
    },
    async ({ a, b }: { a: number; b: number }) => {
      log(`call add ${JSON.stringify({ a, b })}`);
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  server.registerTool("slow", { description: "Waits until released.", inputSchema: {} }, async (_args, extra) => {
    log("call slow");
    await released(extra.signal);
    return { content: [{ type: "text", text: "released" }] };
  });
  if (changed)
    server.registerTool(
      "subtract",
      { description: "Subtract b from a.", inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }: { a: number; b: number }) => ({
        content: [{ type: "text", text: String(a - b) }],
      }),
    );
  server.registerTool("fail", { description: "Always fails.", inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: "text", text: "no such permit" }],
  }));
  server.registerTool("cite", { description: "A resource.", inputSchema: {} }, async () => {
    log("call cite");
    return {
      content: [
        { type: "text", text: "One permit page." },
        { type: "resource", resource: { uri: "doc://permits/1", text: "Permits cost 20 euros." } },
      ],
    };
  });
  server.registerTool("link", { description: "A link to a resource.", inputSchema: {} }, async () => ({
    content: [{ type: "resource_link", uri: "doc://permits", name: "permits", description: "The permit pages." }],
  }));
  server.registerTool("crash", { description: "Exits the process.", inputSchema: {} }, async () => process.exit(1));
  server.registerTool("pid", { description: "The server's process id.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  return server;
}

const at = process.argv.indexOf("--http");
if (at === -1) {
  // The client is gone (its worker killed): stop, however long a call of `slow` would wait.
  process.stdin.on("end", () => process.exit(0));
  await build().connect(new StdioServerTransport());
} else {
  const token = process.env.FIXTURE_TOKEN;
  createServer(async (request: IncomingMessage, response: ServerResponse) => {
    if (token && request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await build().connect(transport);
    await transport.handleRequest(request, response);
  }).listen(Number(process.argv[at + 1]), "127.0.0.1", () => process.stdout.write("listening\n"));
}
