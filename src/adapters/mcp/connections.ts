/**
 * McpConnections: one lazily opened client per MCP server, pooled per worker. A stdio server that
 * crashed is started again on the next call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { checkServer, type McpServer } from "./server.js";

/** The open clients of one worker, by server name. */
export class McpConnections {
  private readonly open = new Map<string, Promise<Client>>();

  /** The client of `server`, opened on first use and after its transport closed. */
  client(server: McpServer): Promise<Client> {
    const known = this.open.get(server.name);
    if (known !== undefined) return known;
    const opening = connect(checkServer(server), () => this.open.delete(server.name));
    this.open.set(server.name, opening);
    opening.catch(() => this.open.delete(server.name));
    return opening;
  }

  /** Close every client (the stdio servers stop). */
  async close(): Promise<void> {
    const clients = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(clients.map(async (client) => (await client).close()));
  }
}

async function connect(server: McpServer, onClose: () => void): Promise<Client> {
  const client = new Client({ name: "soev-agents", version: "1" });
  const transport = transportOf(server);
  // A crashed or closed server is forgotten, so the next call starts it again.
  client.onclose = onClose;
  await client.connect(transport);
  return client;
}

function transportOf(server: McpServer): Transport {
  if (server.command !== undefined) {
    const env = { ...(process.env as Record<string, string>), ...server.env };
    return new StdioClientTransport({ command: server.command, args: server.args ?? [], env, stderr: "ignore" });
  }
  const headers: Record<string, string> = { ...server.headers };
  if (server.tokenEnv !== undefined) headers.Authorization = `Bearer ${process.env[server.tokenEnv]}`;
  return new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers } });
}
