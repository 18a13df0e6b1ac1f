/**
 * mcpTools: the tools of one MCP server as soev-agents tools. The model's arguments are checked against
 * the server's input schema before the call; an isError result is a tool failure the model reads; a
 * transport failure is a TransientError (the call runs again); an aborted call cancels the MCP request;
 * progress notifications are heartbeats. Resources in a result become elements whose ids are their URIs.
 */
import { z } from "zod";
import { McpError, type CallToolResult, type Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js";
import { Reference, Source, type Element } from "../../domain/elements.js";
import { ToolOutput } from "../../domain/events.js";
import { ValueError } from "../../domain/errors.js";
import { TransientError } from "../../ports/errors.js";
import type { Tool } from "../../runtime/contracts.js";
import { tool } from "../../runtime/tools/function-tool.js";
import type { McpConnections } from "./connections.js";
import { approves, offers, type McpServer } from "./server.js";

/** The tools `server` offers (after its allow and deny lists), each calling it through `connections`. */
export async function mcpTools(server: McpServer, connections: McpConnections): Promise<Tool[]> {
  const client = await connections.client(server);
  const { tools } = await client.listTools();
  return tools.filter((definition) => offers(server, definition.name)).map((d) => mcpTool(server, connections, d));
}

/** One MCP tool as a soev-agents tool. */
export function mcpTool(server: McpServer, connections: McpConnections, definition: McpToolDef): Tool {
  const name = definition.name;
  return tool({
    name,
    description: definition.description ?? `The tool ${name} of the MCP server ${server.name}.`,
    args: argsOf(server, definition),
    needsApproval: approves(server, name),
    listed: true,
    async run(args, context) {
      const client = await connections.client(server);
      let result: CallToolResult;
      try {
        result = (await client.callTool({ name, arguments: args }, undefined, {
          signal: context.signal,
          onprogress: () => context.heartbeat?.(),
          resetTimeoutOnProgress: true,
        })) as CallToolResult;
      } catch (error) {
        if (context.signal?.aborted) throw error;
        if (error instanceof McpError && !transportCode(error.code)) return ToolOutput({ error: error.message });
        throw new TransientError(`MCP server "${server.name}" failed during ${name}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      return outputOf(result);
    },
  });
}

// -32000..-32099 are the SDK's closed connection and timeout, -32603 the server's internal error: try again.
function transportCode(code: number): boolean {
  return (code <= -32000 && code >= -32099) || code === -32603;
}

function argsOf(server: McpServer, definition: McpToolDef): z.ZodRawShape {
  try {
    const schema = z.fromJSONSchema(definition.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    return schema instanceof z.ZodObject ? (schema.shape as z.ZodRawShape) : {};
  } catch (error) {
    throw new ValueError(
      `MCP server "${server.name}": the input schema of ${definition.name} cannot be read (${(error as Error).message}).`,
      { cause: error },
    );
  }
}

/** What a Reference shows of a linked or binary resource: its name, description and MIME type where given. */
function described(resource: { name?: string; description?: string; mimeType?: string }): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const key of ["name", "description", "mimeType"] as const) if (resource[key]) shown[key] = resource[key];
  return shown;
}

/**
 * The ToolOutput of one MCP result: texts joined, text resources as Sources, resource links and binary
 * resources as References, isError as the error the model reads.
 */
export function outputOf(result: CallToolResult): ToolOutput {
  const texts: string[] = [];
  const elements: Element[] = [];
  for (const part of result.content ?? []) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "resource" && "text" in part.resource)
      elements.push(Source({ id: part.resource.uri, text: part.resource.text }));
    // A link, or a resource whose content is not text: the model can name it by number, not cite it.
    else if (part.type === "resource")
      elements.push(Reference({ id: part.resource.uri, properties: described(part.resource) }));
    else if (part.type === "resource_link") elements.push(Reference({ id: part.uri, properties: described(part) }));
  }
  const text = texts.join("\n");
  if (result.isError === true) return ToolOutput({ error: text || "The tool failed." });
  const data = (result.structuredContent ?? null) as ToolOutput["data"];
  return ToolOutput({ text: text || null, data, elements });
}
