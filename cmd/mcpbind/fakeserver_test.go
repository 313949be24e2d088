package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
)

// fakeServerEnv, when set in the environment of this test binary, makes it a
// fake stdio MCP server instead of running the tests (see TestMain). The
// tests start it through the mcpbind binary: -- <this binary> with
// --env MCPBIND_FAKE_SERVER=<mode>.
const fakeServerEnv = "MCPBIND_FAKE_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		os.Exit(fakeServer(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fakeServer behaves as mode says:
//
//	exit          write a line to stderr and exit 7 at once
//	echo-env      write $MCPBIND_TEST_SECRET to stderr and stdout, exit 1
//	garbage-exit  write bytes that are not JSON-RPC to stdout, then exit 0
//	garbage       write bytes that are not JSON-RPC, then answer nothing
//	hang          answer nothing (until stdin closes)
//	notools       handshake, then answer tools/list with {"nope":1}
//	noname        handshake, then list a tool without a name
//	duplicate     handshake, then list one tool name twice
//	loopcursor    handshake, then give the same nextCursor on every page
//	badutf8       handshake, then list a tool whose property name is not
//	              valid UTF-8
//	odd           handshake, then list tools whose schemas mcp.Tool cannot
//	              decode (boolean and type-array roots) over two pages
func fakeServer(mode string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch mode {
	case "exit":
		fmt.Fprintln(stderr, "fake server: cannot open /nonexistent/db: permission denied")
		return 7
	case "echo-env":
		fmt.Fprintln(stderr, "fake server: bad key", os.Getenv("MCPBIND_TEST_SECRET"))
		fmt.Fprintln(stdout, "key:", os.Getenv("MCPBIND_TEST_SECRET"))
		return 1
	case "garbage-exit":
		_, _ = stdout.Write([]byte("\x00\x01\xfe garbage \xff{{{\nnot json at all\n"))
		return 0
	case "garbage":
		_, _ = stdout.Write([]byte("\x00\x01\xfe garbage \xff{{{\nnot json at all\n"))
		_, _ = io.Copy(io.Discard, stdin)
		return 0
	case "hang":
		_, _ = io.Copy(io.Discard, stdin)
		return 0
	}

	enc := json.NewEncoder(stdout)
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Cursor          string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || len(msg.ID) == 0 || msg.Method == "" {
			continue // a notification or a response
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
		switch msg.Method {
		case "initialize":
			v := msg.Params.ProtocolVersion
			if v == "" {
				v = "2025-06-18"
			}
			reply["result"] = json.RawMessage(`{"protocolVersion":"` + v + `","capabilities":{"tools":{}},` +
				`"serverInfo":{"name":"Fake Server","version":"0.0.1"}}`)
		case "tools/list":
			reply["result"] = json.RawMessage(fakeToolsPage(mode, msg.Params.Cursor))
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found"}
		}
		_ = enc.Encode(reply)
	}
	return 0
}

// oddTools are tools whose schemas mcp.Tool cannot decode: a boolean
// inputSchema and a type-array outputSchema root; keys deliberately unsorted.
var oddTools = []string{
	`{"name":"bool_root","inputSchema":true,"description":"takes anything"}`,
	`{"name":"array_root","inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":["integer","null"]}}},"outputSchema":{"type":["array","null"],"items":{"type":"string"}}}`,
}

func fakeToolsPage(mode, cursor string) string {
	switch mode {
	case "notools":
		return `{"nope":1}`
	case "noname":
		return `{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"description":"I have no name","inputSchema":{"type":"object"}}]}`
	case "duplicate":
		return `{"tools":[{"name":"twice","inputSchema":{"type":"object"}},{"name":"twice","inputSchema":{"type":"object"}}]}`
	case "badutf8":
		return "{\"tools\":[{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"query\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ta\xffble\":{\"type\":\"string\"}}}}]}"
	case "loopcursor":
		return `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"again"}`
	case "odd":
		if cursor == "" {
			return `{"tools":[` + oddTools[0] + `],"nextCursor":"page2"}`
		}
		return `{"tools":[` + oddTools[1] + `]}`
	}
	return `{"tools":[]}`
}
