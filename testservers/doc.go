// Package testservers is the root of mcpbind's test scaffolding: everything
// the tests use and the product does not. Nothing here is API: no product
// package (any package outside testservers/, bench/, examples/ and golden/)
// imports any of it, so a program built from the product links none of it
// (testrules.TestProductLinksNoTestServers checks), and it may change with
// any commit. The product's internal/ holds only product packages.
//
// What lives here:
//
//   - The Node.js side, installed with `npm ci --prefix testservers` into
//     node_modules: the pinned npm MCP servers and SDKs the tests start
//     (package.json), and the scripts the Go tests run with node
//     (ts-client.mjs, ts-http-client.mjs, ts-sdk-v2-server.mjs,
//     conformance-client.cjs, conformance-loopback.cjs, listen-loopback.js,
//     globsync-polyfill.cjs, test-browser.cjs).
//   - Go MCP test servers, each a command the tests build and start over a
//     real transport: testserver (composition's tests), pinserver/serve and
//     owntools/serve (pinning and a composing server's own tools),
//     erasserver (export's protocol-era tests), hostileserver (the faults a
//     real server does not produce: garbage, hangs, floods, hostile text),
//     sqlitestub/cmd/sqlite-stub (sqlite-explorer's contract served by a
//     generated stub), memdriver (the memory a large result costs) and
//     seenserver (an mcp-go server whose tool answers with the _meta and
//     JSON-RPC id of its own request, in process, over HTTP, or over
//     stdio from a test binary started again).
//   - github-mcp-server: a nested Go module (its own go.mod, so that its
//     dependencies stay out of mcpbind's) that pins the real
//     github.com/github/github-mcp-server, a server on the official Go SDK,
//     as a tool dependency; testenv.GitHubMCPServer builds it and `make
//     deps` downloads its modules.
//   - Test helpers: testenv (finding node and the npm packages, starting
//     servers on loopback, building commands, waiting for signals),
//     gencheck and servecheck (checks of generated packages), synth (the
//     synthetic tools of the scale benchmarks), schemasuite (JSON Schema
//     coverage against the JSON-Schema-Test-Suite) and testrules (rules the
//     tests themselves must follow).
//   - Tools: tools/testrun (go test that fails on a skipped test; make test
//     and .ci/run use it) and tools/mutate (mutation testing, make mutate).
package testservers
