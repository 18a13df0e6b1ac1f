/** McpServer: how to reach one MCP server and which of its tools an agent gets. */
import { ValueError } from "../../domain/errors.js";

/** One MCP server: a stdio command or a Streamable HTTP url, and which of its tools to offer. */
export interface McpServer {
  /** The name the server's tools are known by in errors and logs. */
  name: string;
  /** The command that starts a stdio server, with its arguments. */
  command?: string;
  args?: string[];
  /** The environment the stdio command gets on top of the default one. */
  env?: Record<string, string>;
  /** The url of a Streamable HTTP server. */
  url?: string;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** The name of the environment variable that holds a bearer token, read when the connection opens. */
  tokenEnv?: string;
  /** Only these tools are offered; absent offers every tool not denied. */
  allow?: string[];
  /** These tools are never offered. */
  deny?: string[];
  /** Whether a call waits for a person's approval: every tool (true), none (false) or the named ones. */
  needsApproval?: boolean | string[];
}

/** Check an McpServer: exactly one of command and url, a url that parses, a token variable that is set. */
export function checkServer(server: McpServer): McpServer {
  const where = `MCP server "${server.name}"`;
  if ((server.command === undefined) === (server.url === undefined))
    throw new ValueError(`${where} needs exactly one of command (stdio) and url (Streamable HTTP).`);
  if (server.url !== undefined && !URL.canParse(server.url))
    throw new ValueError(`${where}: url ${JSON.stringify(server.url)} is not a URL.`);
  if (server.tokenEnv !== undefined && !process.env[server.tokenEnv])
    throw new ValueError(`${where}: the environment variable ${server.tokenEnv} that holds its token is not set.`);
  return server;
}

/** Whether the server offers the tool `name` under its allow and deny lists. */
export function offers(server: McpServer, name: string): boolean {
  if (server.deny?.includes(name)) return false;
  return server.allow === undefined || server.allow.includes(name);
}

/** Whether a call of the tool `name` waits for approval. */
export function approves(server: McpServer, name: string): boolean {
  const setting = server.needsApproval ?? false;
  return typeof setting === "boolean" ? setting : setting.includes(name);
}
