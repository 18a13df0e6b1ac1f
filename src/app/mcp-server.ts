/**
 * agentsAsMcpServer: a catalog's agents as the tools of an MCP server. Each call is a durable turn on
 * Temporal (startTurn) on a thread the caller may name; the tool's result is the answer with its resolved
 * citations: each cited source as an embedded resource (its text, when the server can read the thread) or
 * a resource link, its URI the source's id.
 *
 * @module soev-agents/mcp-server
 */
import type { Client } from "@temporalio/client";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ValueError } from "../domain/errors.js";
import { ToolOutput } from "../domain/events.js";
import type { AgentCatalog } from "../runtime/catalog.js";
import type { TurnResult } from "../temporal/contract.js";
import { startTurn } from "../temporal/start-turn.js";

/** One served agent: the description the calling model reads. */
export interface ServedAgent {
  /** What the agent answers; default a sentence naming it. */
  description?: string;
}

/** What agentsAsMcpServer takes. */
export interface AgentsAsMcpServerOptions {
  /** Starts each call's turn. */
  client: Client;
  /** The agents served, by their names in the workers' catalog. */
  agents: Readonly<Record<string, ServedAgent>>;
  /** The task queue the workers poll. Default "soev-agents". */
  taskQueue?: string;
  /** The model each turn runs on (the Input's model). Default "default". */
  model?: string;
  /** Reads each answered thread for the cited sources' texts; without it they come back as resource links. */
  catalog?: AgentCatalog;
  /** The principal the turns are started for (the worker's authorize hook reads it). Default none. */
  principal?: string;
}

const ARGUMENTS = {
  message: z.string().min(1).describe("What to ask the agent."),
  threadId: z
    .string()
    .min(1)
    .optional()
    .describe("The thread to continue; leave it out to start a new one (its id comes back as threadId)."),
};

/**
 * An MCP server (the SDK's McpServer) with one tool per agent; connect it to a transport (stdio, Streamable HTTP).
 * @throws ValueError when no agent is given or a name is not a valid tool name.
 */
export function agentsAsMcpServer(options: AgentsAsMcpServerOptions): McpServer {
  const names = Object.keys(options.agents);
  if (names.length === 0) throw new ValueError("agentsAsMcpServer needs at least one agent to serve.");
  const server = new McpServer({ name: "soev-agents", version: "1" });
  for (const name of names) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw new ValueError(`The agent name "${name}" is not an MCP tool name: 1 to 64 letters, digits, "_" or "-".`);
    const description =
      options.agents[name]!.description ??
      `Ask the agent "${name}"; it answers with numbered citations of its sources.`;
    server.registerTool(name, { description, inputSchema: ARGUMENTS }, ({ message, threadId }) =>
      answer(options, name, message, threadId),
    );
  }
  return server;
}

async function answer(
  options: AgentsAsMcpServerOptions,
  agent: string,
  message: string,
  threadId: string | undefined,
): Promise<CallToolResult> {
  const turn = await startTurn(options.client, {
    agent,
    threadId: threadId ?? null,
    input: { payload: message, model: options.model ?? "default" },
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    ...(options.principal ? { principal: options.principal } : {}),
  });
  let result: TurnResult;
  try {
    result = await turn.result();
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: `The turn failed: ${(error as Error).message}` }] };
  }
  const texts = options.catalog ? await sourceTexts(options.catalog, agent, result) : new Map<string, string>();
  return {
    content: [
      { type: "text", text: result.answer },
      ...result.sources.map((id) => {
        const text = texts.get(id);
        return text === undefined
          ? { type: "resource_link" as const, uri: id, name: id }
          : { type: "resource" as const, resource: { uri: id, text } };
      }),
    ],
    structuredContent: {
      threadId: result.threadId,
      workflowId: turn.workflowId,
      runId: turn.runId,
      answer: result.answer,
      citations: result.citations,
      sources: result.sources,
    } as unknown as Record<string, unknown>,
  };
}

/** The texts of the turn's cited sources, as the thread's tool results hold them. */
async function sourceTexts(catalog: AgentCatalog, agent: string, result: TurnResult): Promise<Map<string, string>> {
  const wanted = new Set(result.sources);
  const texts = new Map<string, string>();
  const trace = await catalog.read(result.threadId, agent);
  for (const output of trace.byType(ToolOutput))
    for (const element of output.elements) {
      const text = (element as { text?: unknown }).text;
      if (wanted.has(element.id) && typeof text === "string") texts.set(element.id, text);
    }
  return texts;
}
