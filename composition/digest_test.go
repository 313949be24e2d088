package composition

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/internal/digest"
)

// TestDigestCheck connects to the mcp-go test server over stdio with each
// digest mode, with the right digest and a stale one.
func TestDigestCheck(t *testing.T) {
	bin := buildTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	plain, err := Connect(ctx, Stdio(bin))
	if err != nil {
		t.Fatal(err)
	}
	current, err := plain.ServerDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := plain.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = plain.Close()
	// The same digest as the bundle's: internal/digest over the raw tools.
	if want, _ := digest.Server(tools); current != want || !digest.Valid(current) {
		t.Fatalf("ServerDigest %q, want %q", current, want)
	}
	stale := digest.Of([]byte("an older contract"))

	connect := func(expected string, mode DigestMode) (*Session, []string, error) {
		var warnings []string
		s, err := Connect(ctx, Stdio(bin), WithDigestCheck(expected, mode),
			WithWarnings(func(m string) { warnings = append(warnings, m) }))
		if s != nil {
			t.Cleanup(func() { _ = s.Close() })
		}
		return s, warnings, err
	}

	for _, mode := range []DigestMode{DigestWarn, DigestFail} {
		s, warnings, err := connect(current, mode)
		if err != nil || len(warnings) != 0 || len(s.Warnings()) != 0 {
			t.Errorf("%v, current digest: %v %q", mode, err, warnings)
		}
	}
	for _, expected := range []string{stale, ""} {
		s, warnings, err := connect(expected, DigestOff)
		if err != nil || len(warnings) != 0 || s == nil {
			t.Errorf("off: %v %q", err, warnings)
		}
	}
	if s, warnings, err := connect("", DigestFail); err != nil || len(warnings) != 0 || s == nil {
		t.Errorf("fail with no digest: %v %q", err, warnings)
	}

	s, warnings, err := connect(stale, DigestWarn)
	if err != nil || s == nil {
		t.Fatalf("warn, stale digest: %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "the server's tools changed since the bundle was exported") ||
		!strings.Contains(warnings[0], current) || !strings.Contains(warnings[0], stale) || strings.HasPrefix(warnings[0], "composition:") {
		t.Errorf("warnings %q", warnings)
	}
	if got := s.Warnings(); len(got) != 1 || got[0] != warnings[0] {
		t.Errorf("Session.Warnings %q", got)
	}
	// The session still works.
	if _, err := s.ListToolsRaw(ctx); err != nil {
		t.Errorf("after a warning: %v", err)
	}

	s, _, err = connect(stale, DigestFail)
	var dm *DigestMismatchError
	if s != nil || !errors.As(err, &dm) {
		t.Fatalf("fail, stale digest: %v (session %v)", err, s)
	}
	if dm.Expected != stale || dm.Actual != current || dm.Server != bin || dm.Tools != len(tools) || dm.ProtocolVersion != ModernProtocolVersion {
		t.Errorf("error %+v", dm)
	}
	if !strings.HasPrefix(err.Error(), "composition: "+bin+": the server's tools changed") {
		t.Errorf("message %q", err)
	}
}

func TestDigestModeString(t *testing.T) {
	for m, want := range map[DigestMode]string{DigestOff: "off", DigestWarn: "warn", DigestFail: "fail", 7: "DigestMode(7)"} {
		if m.String() != want {
			t.Errorf("%d: %q", int(m), m.String())
		}
	}
}
