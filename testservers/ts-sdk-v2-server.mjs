#!/usr/bin/env node
// A stdio MCP server written with the TypeScript SDK v2 (@modelcontextprotocol/server),
// for mcpbind's tests of protocol eras and result envelopes (SEP-2106).
//
//   node ts-sdk-v2-server.mjs          serves both eras through serveStdio(factory):
//                                      server/discover → 2026-07-28, initialize → 2025-era
//   node ts-sdk-v2-server.mjs legacy   McpServer.connect(new StdioServerTransport()):
//                                      the initialize handshake only
//
// Toward clients before 2026-07-28 the SDK wraps every outputSchema whose root is not
// "type":"object" (an array, an integer, a nullable object) as
// {"type":"object","properties":{"result":S},"required":["result"]} and each value as
// {"result": v}; toward 2026-07-28 clients it sends the natural schema and value. A plain
// object schema is never wrapped.
//
// Tools:
//   list_tags  → ["alpha","beta","gamma"]                  outputSchema: array of strings
//   count      → 42 (or the argument "n")                  outputSchema: integer
//   find_row   → {"id":7,"name":"row"},                    outputSchema: nullable object
//                null when called with {"missing": true}
//   stats      → {"tables":3,"rows":120}                   outputSchema: plain object
//   fail       → a JSON-RPC error -32001 "backend unavailable: fetch failed" (McpServer
//                turns what a tool callback throws into an isError result, so the
//                tools/call handler is wrapped to throw it), for the proxy tests
//   echo_args  → one text block: the arguments exactly as received (before the SDK's
//                validation, which would apply defaults and drop unknown properties);
//                listed with "a" defaulting to 5 and unknown properties allowed

import { McpServer, ProtocolError } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const mode = process.argv[2] ?? 'both';

// result returns a tool result carrying v as structuredContent and, as SEP-2106 asks of
// non-object values, as serialized JSON in a text block.
function result(v) {
    return {
        content: [{ type: 'text', text: JSON.stringify(v) }],
        structuredContent: v
    };
}

function newServer() {
    const server = new McpServer(
        { name: 'mcpbind-ts-sdk-v2', version: '2.4.0-test' },
        { capabilities: { tools: {} }, instructions: 'TypeScript SDK v2 test server for mcpbind.' }
    );

    server.registerTool(
        'list_tags',
        {
            description: 'Lists the tags.',
            inputSchema: z.object({}),
            outputSchema: z.array(z.string())
        },
        async () => result(['alpha', 'beta', 'gamma'])
    );

    server.registerTool(
        'count',
        {
            description: 'Counts something.',
            inputSchema: z.object({ n: z.number().int().optional() }),
            outputSchema: z.number().int()
        },
        async ({ n }) => result(n ?? 42)
    );

    server.registerTool(
        'find_row',
        {
            description: 'Finds a row, or null.',
            inputSchema: z.object({ missing: z.boolean().optional() }),
            outputSchema: z.object({ id: z.number().int(), name: z.string() }).nullable()
        },
        async ({ missing }) => result(missing ? null : { id: 7, name: 'row' })
    );

    server.registerTool(
        'stats',
        {
            description: 'Returns statistics.',
            inputSchema: z.object({}),
            outputSchema: z.object({ tables: z.number().int(), rows: z.number().int() })
        },
        async () => result({ tables: 3, rows: 120 })
    );

    server.registerTool(
        'fail',
        { description: 'Fails with a JSON-RPC error.', inputSchema: z.object({}) },
        async () => result(null)
    );

    server.registerTool(
        'echo_args',
        {
            description: 'Echoes its arguments as received.',
            inputSchema: z.looseObject({ a: z.number().int().default(5) })
        },
        async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] })
    );

    // McpServer answers every tools/call through one handler; wrap it so that fail throws
    // a JSON-RPC error and echo_args sees the arguments before validation.
    const handlers = server.server._requestHandlers;
    const callTool = handlers.get('tools/call');
    handlers.set('tools/call', async (request, ctx) => {
        switch (request.params?.name) {
            case 'fail':
                throw new ProtocolError(-32001, 'backend unavailable: fetch failed');
            case 'echo_args':
                return { content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? null) }] };
        }
        return callTool(request, ctx);
    });

    return server;
}

const onerror = (err) => console.error('ts-sdk-v2-server:', err);

if (mode === 'legacy') {
    const server = newServer();
    await server.connect(new StdioServerTransport());
} else if (mode === 'both') {
    serveStdio(() => newServer(), { onerror });
} else {
    console.error(`ts-sdk-v2-server: unknown mode ${JSON.stringify(mode)}; use "legacy" or nothing`);
    process.exit(2);
}
console.error(`ts-sdk-v2-server: serving over stdio (${mode})`);
