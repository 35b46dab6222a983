// A real MCP server for tests (the official SDK's McpServer over Streamable HTTP), and an OAuth
// client-credentials token endpoint for its integrations.
export {
  type McpUpstream,
  startMcpUpstream,
  startTokenEndpoint,
  type TokenEndpoint,
  UPSTREAM_INFO,
} from './mcp-upstream.js';
