// An MCP server made with the SDK's McpServer class: stdio by default, Streamable HTTP with --http PORT.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function build() {
  const server = new McpServer({ name: "fixture", version: "1" });
  server.registerTool(
    "add",
    { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }: { a: number; b: number }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool("fail", { description: "Always fails.", inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: "text", text: "no such permit" }],
  }));
  server.registerTool("cite", { description: "A resource.", inputSchema: {} }, async () => ({
    content: [{ type: "resource", resource: { uri: "doc://permits/1", text: "Permits cost 20 euros." } }],
  }));
  server.registerTool("crash", { description: "Exits the process.", inputSchema: {} }, async () => process.exit(1));
  server.registerTool("pid", { description: "The server's process id.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  return server;
}

const at = process.argv.indexOf("--http");
if (at === -1) {
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
