import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { McpConnections, mcpTools, type McpServer } from "../../../src/adapters/mcp/index.js";
import { Reference, Source } from "../../../src/domain/elements.js";
import { TransientError } from "../../../src/ports/errors.js";
import type { Tool } from "../../../src/runtime/contracts.js";

const FIXTURE = fileURLToPath(new URL("./fixture-server.ts", import.meta.url));
const STDIO: McpServer = { name: "fixture", command: process.execPath, args: [FIXTURE] };
const connections = new McpConnections();
const children: ChildProcess[] = [];
afterAll(async () => {
  await connections.close();
  for (const child of children) child.kill();
});

const context = { trace: null as never, turn: [], callId: "c1" };
const byName = (tools: Tool[], name: string) => tools.find((each) => each.name === name)!;

describe("an SDK server over stdio", () => {
  it("offers its tools with their schemas, minus the denied ones", async () => {
    const tools = await mcpTools({ ...STDIO, deny: ["crash"] }, connections);
    expect(tools.map((each) => each.name).sort()).toEqual(["add", "cite", "fail", "link", "pid", "slow"]);
    expect(byName(tools, "add").def().parameters).toMatchObject({ required: ["a", "b"] });
  });

  it("calls a tool; checks arguments before the call; isError is the model's to read", async () => {
    const tools = await mcpTools(STDIO, connections);
    const add = byName(tools, "add");
    expect((await add.invoke({ a: 2, b: 3 }, context)).text).toBe("5");
    expect(add.args.safeParse({ a: "two", b: 3 }).success).toBe(false);
    expect((await byName(tools, "fail").invoke({}, context)).error).toBe("no such permit");
  });

  it("gives a text resource as a Source and a resource link as a Reference, each with its URI as id", async () => {
    const output = await byName(await mcpTools(STDIO, connections), "cite").invoke({}, context);
    expect(output.elements).toMatchObject([{ id: "doc://permits/1", text: "Permits cost 20 euros." }]);
    expect(Source.is(output.elements[0]!)).toBe(true);
    const [link] = (await byName(await mcpTools(STDIO, connections), "link").invoke({}, context)).elements;
    expect(link).toEqual(
      Reference({ id: "doc://permits", properties: { name: "permits", description: "The permit pages." } }),
    );
    expect(Source.is(link!)).toBe(false);
  });

  it("fails transiently when the server dies mid-call, and starts it again for the next call", async () => {
    const own = new McpConnections();
    const tools = await mcpTools(STDIO, own);
    const before = (await byName(tools, "pid").invoke({}, context)).text;
    await expect(byName(tools, "crash").invoke({}, context)).rejects.toBeInstanceOf(TransientError);
    const after = (await byName(tools, "pid").invoke({}, context)).text;
    expect(after).not.toBe(before);
    await own.close();
  });
});

describe("an SDK server over Streamable HTTP", () => {
  it("sends the bearer token from the environment", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [FIXTURE, "--http", String(port)], {
      env: { ...process.env, FIXTURE_TOKEN: "s3cret" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    await new Promise((resolve) => child.stdout!.once("data", resolve));
    process.env.MCP_TEST_TOKEN = "s3cret";
    const server: McpServer = { name: "http", url: `http://127.0.0.1:${port}/mcp`, tokenEnv: "MCP_TEST_TOKEN" };
    const tools = await mcpTools(server, connections);
    expect((await byName(tools, "add").invoke({ a: 1, b: 1 }, context)).text).toBe("2");
    process.env.MCP_TEST_TOKEN = "wrong";
    await expect(mcpTools({ ...server, name: "http-wrong" }, connections)).rejects.toThrow();
    delete process.env.MCP_TEST_TOKEN;
  });
});

describe("the reference filesystem server, unchanged", () => {
  it("reads a file", async () => {
    const root = mkdtempSync(join(tmpdir(), "mcp-fs-"));
    writeFileSync(join(root, "permit.txt"), "Bulky waste: call 14 020.");
    const entry = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"));
    const tools = await mcpTools({ name: "fs", command: process.execPath, args: [entry, root] }, connections);
    const read = byName(tools, "read_text_file") ?? byName(tools, "read_file");
    const output = await read.invoke({ path: join(root, "permit.txt") }, context);
    expect(output.text).toContain("Bulky waste: call 14 020.");
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
