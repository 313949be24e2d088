package composition

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// TestPinningRegistry pins greet and add of a stdio pin server under a
// Registry with DigestFail. mutate changes greet's description (the server
// records the change and replays it when restarted); the registry's calls
// of greet fail, add works. The server then crashes (its tool exit); the
// registry reconnects to a new process, which comes back with the changed
// greet: the new session's Connect compares the tools again, so greet still
// fails and add works, and Status shows the reconnect.
func TestPinningRegistry(t *testing.T) {
	bin := buildPinServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := Stdio(bin, "-state", filepath.Join(t.TempDir(), "changes"))
	pins := exportPins(ctx, t, tr)
	warned := make(pinWarnings, 64)
	reg := NewRegistry(WithBackoff(10*time.Millisecond, 100*time.Millisecond))
	defer reg.Close()
	if err := reg.Add("pins", tr, warned.option(), pins.check("", DigestFail, "greet", "add")); err != nil {
		t.Fatal(err)
	}
	c := reg.Server("pins")
	greet := func() error {
		_, err := CallRaw(ctx, c, pins.tools["greet"], map[string]string{"name": "Ada"})
		return err
	}
	add := func() error {
		_, err := CallRaw(ctx, c, pins.tools["add"], map[string]int{"a": 1, "b": 2})
		return err
	}
	call := func(name string, args any) error {
		_, err := CallRaw(ctx, c, bindimpl.Tool{Name: name}, args)
		return err
	}
	if err := greet(); err != nil {
		t.Fatal(err)
	}
	if st := reg.Status(); len(st) != 1 || st[0].State != StateConnected || st[0].ChangedTools != nil {
		t.Errorf("status before the change %+v", st)
	}
	if err := call("mutate", map[string]string{"change": "description"}); err != nil {
		t.Fatal(err)
	}
	warned.waitFor(ctx, t, `tool "greet" changed`)
	var tc *ToolChangedError
	if err := greet(); !errors.As(err, &tc) {
		t.Fatalf("greet after the change: %v", err)
	}
	// Health shows the drift: degraded, greet blocked with its class.
	st := reg.Status()
	if len(st) != 1 || st[0].State != StateDegraded ||
		!slices.Equal(st[0].ChangedTools, []ToolStatus{{Tool: "greet", Class: Cosmetic, Changes: 1, Blocked: true}}) {
		t.Errorf("status after the change %+v", st)
	}
	if j, err := json.Marshal(st[0]); err != nil || !strings.Contains(string(j), `"state":"degraded"`) ||
		!strings.Contains(string(j), `"changedTools":[{"tool":"greet","class":"cosmetic","changes":1,"blocked":true}]`) {
		t.Errorf("status as JSON: %s (%v)", j, err)
	}
	if err := add(); err != nil {
		t.Fatalf("add after greet changed: %v", err)
	}

	// The server crashes; the next call reconnects to a new process.
	var lost *CallLostError
	if err := call("exit", nil); !errors.As(err, &lost) {
		t.Fatalf("exit: %v, want a *CallLostError", err)
	}
	if err := add(); err != nil {
		t.Fatalf("add after the reconnect: %v", err)
	}
	if err := greet(); !errors.As(err, &tc) || tc.Changes[0].Code != "tool-fields-changed" {
		t.Fatalf("greet after the reconnect: %v", err)
	}
	if st := reg.Status(); len(st) != 1 || st[0].Reconnects != 1 || st[0].State != StateDegraded || len(st[0].ChangedTools) != 1 {
		t.Errorf("status %+v", st)
	}
}
