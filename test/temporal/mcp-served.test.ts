// An agent served by `soev-agents mcp`: the SDK's MCP client starts the command over stdio, lists the agent as a
// tool and calls it; the call is a durable turn on Temporal (its workflow completed, as the UI shows it), and
// the result carries the answer and each cited source as an embedded resource whose URI is the source's id.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteTraceStore } from "../../src/adapters/stores/sqlite.js";
import { TOWN_MODEL, TOWN_QUESTIONS, townCatalog } from "../fixtures/temporal/town.js";
import {
  connectClient,
  temporalAddress,
  temporalEnvironment,
  temporalNamespace,
  uniqueTaskQueue,
  type TestClient,
} from "../support/temporal.js";
import { sharedBundle, withWorker } from "./harness.js";

const CLI = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
const CATALOG_MODULE = fileURLToPath(new URL("../fixtures/town-catalog-module.ts", import.meta.url));

let temporal: TestClient;
const folder = mkdtempSync(join(tmpdir(), "soev-mcp-served-"));
const store = new SqliteTraceStore(join(folder, "soev-agents.sqlite"));
beforeAll(async () => {
  temporal = await connectClient();
  await sharedBundle();
});
afterAll(async () => {
  await store.close();
  await temporal.close();
});

it("serves an agent as an MCP tool: the SDK's client gets the answer with its cited sources", async () => {
  const taskQueue = uniqueTaskQueue("mcp-served");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", CLI, "mcp", "--agent", "assistant", "--model", TOWN_MODEL, "--catalog", CATALOG_MODULE],
    env: {
      ...(process.env as Record<string, string>),
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: temporalNamespace(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SOEV_DATA_DIR: folder,
      // The store is the SQLite file under SOEV_DATA_DIR, not a PostgreSQL that CI names.
      DATABASE_URL: "",
    },
    stderr: "inherit",
  });
  const client = new McpClient({ name: "test", version: "1" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})])).toEqual([
      ["assistant", ["message", "threadId"]],
    ]);
    const { catalog } = townCatalog(store);
    const result = (await withWorker(catalog, taskQueue, () =>
      client.callTool({ name: "assistant", arguments: { message: TOWN_QUESTIONS[0]!, threadId: "mcp-served" } }),
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const [answer, ...sources] = result.content;
    expect(answer).toEqual({ type: "text", text: expect.stringContaining("[2]") });
    expect(sources).toEqual([
      { type: "resource", resource: { uri: "waste-collection#2", text: expect.stringContaining("four times a year") } },
    ]);
    const served = result.structuredContent as { threadId: string; workflowId: string; sources: string[] };
    expect(served).toMatchObject({ threadId: "mcp-served", sources: ["waste-collection#2"] });
    // The turn is a workflow of its own, as the Temporal UI lists it.
    const described = await temporal.client.workflow.getHandle(served.workflowId).describe();
    expect(described.status.name).toBe("COMPLETED");
    expect(described.taskQueue).toBe(taskQueue);
  } finally {
    await client.close();
  }
});

it("serves over Streamable HTTP, and without a catalog gives the cited sources as resource links", async () => {
  const taskQueue = uniqueTaskQueue("mcp-served-http");
  const server = spawn(
    process.execPath,
    ["--import", "tsx", CLI, "mcp", "--agent", "assistant", "--model", TOWN_MODEL, "--http", "0"],
    {
      env: temporalEnvironment(taskQueue),
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      server.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const found = /serving at (\S+)/.exec(output);
        if (found) resolve(found[1]!);
      });
      server.on("exit", (code) => reject(new Error(`soev-agents mcp exited (${code}) before it served`)));
    });
    const client = new McpClient({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { catalog } = townCatalog(store);
    const result = (await withWorker(catalog, taskQueue, () =>
      client.callTool({ name: "assistant", arguments: { message: TOWN_QUESTIONS[0]! } }),
    )) as CallToolResult;
    await client.close();
    expect(result.content.slice(1)).toEqual([
      { type: "resource_link", uri: "waste-collection#2", name: "waste-collection#2" },
    ]);
    // No thread named: the call opened a new one, whose id comes back.
    expect((result.structuredContent as { threadId: string }).threadId).toMatch(/^[0-9a-f-]{36}$/);
  } finally {
    server.kill("SIGTERM");
  }
});
