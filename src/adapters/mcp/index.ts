/** The MCP adapter: MCP servers' tools as soev-agents tools. */
export { McpConnections } from "./connections.js";
export { checkServer, type McpServer } from "./server.js";
export { mcpTool, mcpTools, outputOf } from "./tool.js";
