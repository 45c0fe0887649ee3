import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The official MCP client, connected over Streamable HTTP to `<baseUrl>/mcp` with these headers. */
export async function connectMcp(
  baseUrl: string,
  headers: Record<string, string>,
  fetchImpl?: (url: string | URL | Request, init?: RequestInit) => Promise<Response>,
): Promise<Client> {
  const client = new Client({ name: "gateway-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
    requestInit: { headers },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  await client.connect(transport);
  return client;
}

type ToolResult = { content?: unknown; structuredContent?: unknown; isError?: boolean };

/** Calls a tool; returns its JSON text parsed, its structured content and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const content = result.content as { type: string; text: string }[];
  expectSingleText(content);
  return {
    // biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON
    body: JSON.parse(content[0]?.text ?? "null") as any,
    structured: result.structuredContent,
    isError: result.isError === true,
  };
}

function expectSingleText(content: { type: string }[]): void {
  if (content.length !== 1 || content[0]?.type !== "text") {
    throw new Error(`expected one text content item, got ${JSON.stringify(content)}`);
  }
}
