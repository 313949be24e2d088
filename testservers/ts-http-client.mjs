// A streamable HTTP MCP client written with the TypeScript SDK v2
// (@modelcontextprotocol/client), for the Go tests that call a server over
// HTTP with a client that is not ours:
//
//   node ts-http-client.mjs URL CALLS
//
// The client negotiates the newest protocol version both sides speak
// (versionNegotiation mode "auto": 2026-07-28 with a server that speaks
// it), lists the tools (so the SDK validates structuredContent against each
// outputSchema), makes all of CALLS (a JSON array of
// {"name": …, "arguments": {…}}) at once and prints one JSON object to
// stdout: {"protocolVersion", "results"}, results in the order of CALLS, a
// result being what callTool returned, or {"thrown": message} when it threw.
import process from 'node:process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, callsJSON] = process.argv.slice(2);
if (!url || !callsJSON) {
  console.error('usage: node ts-http-client.mjs URL CALLS');
  process.exit(2);
}
const calls = JSON.parse(callsJSON);

const client = new Client({ name: 'mcpbind-ts-http-client', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const protocolVersion = client.getNegotiatedProtocolVersion();
await client.listTools();
const settled = await Promise.allSettled(
  calls.map(({ name, arguments: args }) => client.callTool({ name, arguments: args ?? {} }))
);
const results = settled.map(s => (s.status === 'fulfilled' ? s.value : { thrown: String(s.reason?.message ?? s.reason) }));
await client.close();
process.stdout.write(JSON.stringify({ protocolVersion, results }) + '\n');
