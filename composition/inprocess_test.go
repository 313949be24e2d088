package composition_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// TestInProcess connects to an mcp-go server in this process at the newest
// protocol version and at 2025-06-18: the version is negotiated as over
// stdio, and the envelope a legacy session gets is unwrapped.
func TestInProcess(t *testing.T) {
	srv := server.NewMCPServer("adder", "1.0.0", server.WithToolCapabilities(false))
	tool := mcp.NewTool("add", mcp.WithNumber("a"), mcp.WithNumber("b"))
	tool.RawOutputSchema = []byte(`{"type":"integer"}`)
	srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sum := int64(req.GetFloat("a", 0) + req.GetFloat("b", 0))
		session := server.ClientSessionFromContext(ctx)
		if v, ok := session.(interface{ GetProtocolVersion() string }); ok && v.GetProtocolVersion() >= composition.ModernProtocolVersion {
			return mcp.NewToolResultStructured(sum, ""), nil
		}
		return mcp.NewToolResultStructured(map[string]int64{"result": sum}, ""), nil
	})
	desc := bindimpl.Tool{Name: "add"} // an integer: {"result": n} is always an envelope
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("version="+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			want := version
			if want == "" {
				want = composition.ModernProtocolVersion
			}
			if s.ProtocolVersion() != want || s.Transport() != composition.TransportInProcess {
				t.Errorf("protocol %s over %s, want %s over %s", s.ProtocolVersion(), s.Transport(), want, composition.TransportInProcess)
			}
			n, err := bindimpl.CallAs[int64](ctx, s, &desc, map[string]int{"a": 2, "b": 40})
			if err != nil || n != 42 {
				t.Errorf("add = %d, %v; want 42", n, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = s.CallResult(ctx, "add", nil)
			if !errors.Is(err, composition.ErrSessionClosed) || !errors.Is(s.Err(), composition.ErrSessionClosed) {
				t.Errorf("after Close: err = %v, Err() = %v", err, s.Err())
			}
		})
	}
	if _, err := composition.Connect(t.Context(), composition.InProcess(nil)); err == nil {
		t.Error("InProcess(nil) connected")
	}
}

// TestLostHTTPConnectionClosed has a Streamable HTTP server close the
// connection under a tools/call without answering (as a crashing server
// does): the call fails as a *SessionLostError that may have been sent, and
// the session is lost.
func TestLostHTTPConnectionClosed(t *testing.T) {
	srv := server.NewMCPServer("crasher", "1.0.0")
	srv.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	mcpHandler := server.NewStreamableHTTPServer(srv)
	var crash atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if crash.Load() && r.Method == http.MethodPost {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := composition.Connect(ctx, composition.HTTP(hs.URL+"/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallResult(ctx, "ok", nil); err != nil {
		t.Fatal(err)
	}
	crash.Store(true)
	_, err = s.CallResult(ctx, "ok", nil)
	t.Logf("call whose connection was closed: %v", err)
	var lost *composition.SessionLostError
	if !errors.As(err, &lost) || !lost.Sent {
		t.Fatalf("err = %v, want a SessionLostError that may have been sent", err)
	}
	if !errors.Is(s.Err(), composition.ErrSessionLost) {
		t.Errorf("Err() = %v, want ErrSessionLost", s.Err())
	}
}

// TestInProcessContextEnds: through InProcess, a call whose context
// expires or is cancelled while the tool runs fails with the context's
// error (errors.Is context.DeadlineExceeded or context.Canceled), as over
// stdio and HTTP, not with a *ToolError made of the handler's error; and a
// handler that ignores its context does not hold the caller past its
// deadline.
func TestInProcessContextEnds(t *testing.T) {
	srv := server.NewMCPServer("slow", "1.0.0", server.WithToolCapabilities(false))
	running := make(chan struct{}, 1)
	srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		running <- struct{}{}
		<-ctx.Done()
		// What composition.Serve makes of a handler's error.
		return mcp.NewToolResultError(ctx.Err().Error()), nil
	})
	release := make(chan struct{})
	defer close(release)
	srv.AddTool(mcp.NewTool("deaf"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("late"), nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := composition.Connect(ctx, composition.InProcess(srv))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(what string, err, want error) {
		t.Helper()
		var te *composition.ToolError
		if !errors.Is(err, want) || errors.As(err, &te) {
			t.Errorf("%s: err = %v, want %v and no *ToolError", what, err, want)
		}
	}

	dctx, dcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = s.CallResult(dctx, "wait", nil)
	dcancel()
	check("deadline", err, context.DeadlineExceeded)
	<-running

	cctx, ccancel := context.WithCancel(ctx)
	go func() {
		<-running
		ccancel()
	}()
	_, err = s.CallResult(cctx, "wait", nil)
	check("cancel", err, context.Canceled)

	dctx, dcancel = context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = s.CallResult(dctx, "deaf", nil)
	dcancel()
	check("a handler that ignores its context", err, context.DeadlineExceeded)
}
