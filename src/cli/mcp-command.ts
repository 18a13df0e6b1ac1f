/**
 * `soev-agents mcp`: serve agents as the tools of an MCP server, over stdio (the default, for an IDE that
 * starts it) or Streamable HTTP (--http PORT). Each call starts a durable turn on Temporal, which the
 * workers of the agents' catalog run; Temporal is found as the worker finds it (temporalSettings).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ValueError } from "../domain/errors.js";
import { storeFromEnvironment } from "../adapters/stores/from-environment.js";
import { catalogFrom } from "../runtime/catalog-module.js";
import { temporalSettings } from "../temporal/settings.js";
import { agentsAsMcpServer, type AgentsAsMcpServerOptions } from "../app/mcp-server.js";

const USAGE = `usage: soev-agents mcp --agent NAME [--agent NAME ...] [--model M] [--catalog MODULE] [--http PORT]
  --agent    an agent of the workers' catalog to serve as a tool (repeat for more)
  --model    the model each turn runs on (default "default")
  --catalog  a module exporting (default or "catalog") a function of the store that returns the catalog:
             cited sources then come back with their texts (the store from DATABASE_URL or SOEV_DATA_DIR)
  --http     serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio
Temporal: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE (or the Temporal config file's profile).`;

/** Run the command on its arguments (after "mcp"); serves until stdin closes (stdio) or SIGTERM/SIGINT (HTTP). */
export async function mcpCommand(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      agent: { type: "string", multiple: true },
      model: { type: "string" },
      catalog: { type: "string" },
      http: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    write(`${USAGE}\n`);
    return 0;
  }
  if (!values.agent?.length) throw new ValueError(`give at least one --agent.\n${USAGE}`);
  const port = values.http === undefined ? null : Number(values.http);
  if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new ValueError(`--http takes a port number, not ${JSON.stringify(values.http)}.`);
  const settings = temporalSettings();
  const connection = await Connection.connect(settings.connection);
  const store = values.catalog ? await storeFromEnvironment() : null;
  try {
    const options: AgentsAsMcpServerOptions = {
      client: new Client({ connection, namespace: settings.namespace }),
      agents: Object.fromEntries(values.agent.map((name) => [name, {}])),
      taskQueue: settings.taskQueue,
      ...(values.model ? { model: values.model } : {}),
      ...(store && values.catalog ? { catalog: await catalogFrom(values.catalog, store) } : {}),
    };
    if (port === null) await serveStdio(options);
    else await serveHttp(options, port, write);
    return 0;
  } finally {
    await store?.close();
    await connection.close();
  }
}

async function serveStdio(options: AgentsAsMcpServerOptions): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => (transport.onclose = done));
  await agentsAsMcpServer(options).connect(transport);
  // The client closes stdin when it is done with the server.
  await Promise.race([closed, once(process.stdin, "end")]);
}

async function serveHttp(options: AgentsAsMcpServerOptions, port: number, write: (text: string) => void) {
  // Stateless: each request gets a server and a transport of its own; the turns are Temporal's to keep.
  const http = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? "/", "http://localhost").pathname !== "/mcp") {
      response.writeHead(404).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await agentsAsMcpServer(options).connect(transport);
    await transport.handleRequest(request, response);
  });
  http.listen(port, "127.0.0.1");
  await once(http, "listening");
  const address = http.address();
  write(`soev-agents mcp: serving at http://127.0.0.1:${typeof address === "object" ? address?.port : port}/mcp\n`);
  await Promise.race([once(process, "SIGTERM"), once(process, "SIGINT")]);
  http.close();
}
