// A stdio MCP client written with one of the TypeScript SDKs, for the Go
// tests that compare what SDK clients see from two servers:
//
//   node ts-client.mjs v1 CALLS -- COMMAND [ARG...]
//   node ts-client.mjs v2 CALLS -- COMMAND [ARG...]
//   node ts-client.mjs v1|v2 CALLS -- http://HOST:PORT/mcp
//
// A COMMAND that is an http:// or https:// URL is reached over the SDK's
// streamable HTTP client transport instead of started over stdio.
//
// v1 is @modelcontextprotocol/sdk (1.x), connected at protocol version
// 2025-06-18: that SDK always offers its newest version (2025-11-25) in
// initialize, so the request is rewritten on its way out; the server then
// answers 2025-06-18, which the SDK supports. v2 is
// @modelcontextprotocol/client (2.x) with versionNegotiation mode "auto":
// the newest version both sides speak (2026-07-28 with a server that
// speaks it).
//
// CALLS is a JSON array of {"name": …, "arguments": {…}}. The client lists
// the tools (so the SDK validates structuredContent against each
// outputSchema, as it does for its users), calls each in turn and prints
// one JSON object to stdout: {"protocolVersion", "tools", "results"}, a
// result being what callTool returned, or {"thrown": message, "code": code}
// when it threw (a JSON-RPC error and its code, or structuredContent that
// does not match the outputSchema).
import process from 'node:process';

const [sdk, callsJSON, dashes, command, ...args] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || dashes !== '--' || !command) {
  console.error('usage: node ts-client.mjs v1|v2 CALLS -- COMMAND [ARG...] | URL');
  process.exit(2);
}
const calls = JSON.parse(callsJSON);
const url = /^https?:\/\//.test(command) ? new URL(command) : undefined;

let client;
let transport;
let negotiated;
if (sdk === 'v1') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  if (url) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(url);
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  }
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: '2025-06-18' } };
    }
    return send(message, options);
  };
  // The SDK keeps the negotiated version to itself: read it from
  // the initialize result as it arrives (Protocol.connect sets onmessage
  // before it starts the transport).
  const start = transport.start.bind(transport);
  transport.start = () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (typeof message?.result?.protocolVersion === 'string') {
        negotiated ??= message.result.protocolVersion;
      }
      deliver?.(message, extra);
    };
    return start();
  };
  client = new Client({ name: 'mcpbind-ts-client-v1', version: '0.0.0' });
} else {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  if (url) {
    transport = new StreamableHTTPClientTransport(url);
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  }
  client = new Client({ name: 'mcpbind-ts-client-v2', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
}

await client.connect(transport);
const protocolVersion = sdk === 'v1' ? negotiated : client.getNegotiatedProtocolVersion();
const { tools } = await client.listTools();
const results = [];
for (const call of calls) {
  try {
    results.push(await client.callTool({ name: call.name, arguments: call.arguments ?? {} }));
  } catch (err) {
    results.push({ thrown: String(err?.message ?? err), code: err?.code });
  }
}
await client.close();
process.stdout.write(JSON.stringify({ protocolVersion, tools, results }) + '\n');

