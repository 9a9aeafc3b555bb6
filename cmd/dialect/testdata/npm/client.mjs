// A client on the official TypeScript MCP SDK: it starts the command given
// as a JSON argv, lists its tools and calls some, and prints what it got
// as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.argv[2]);
const calls = JSON.parse(process.argv[3]);
const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "dialect-ts-test", version: "1.0.0" });
await client.connect(transport);
const out = { tools: (await client.listTools()).tools, results: [] };
for (const [name, args] of calls) {
  out.results.push(await client.callTool({ name, arguments: args }));
}
await client.close();
console.log(JSON.stringify(out));
