package composition

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mcpbind/mcpbind/internal/digest"
)

// DigestMode says what [Connect] does when the server's tools no longer
// match the digest a bundle recorded for them (see [WithDigestCheck]).
type DigestMode int

// The digest modes.
const (
	// DigestOff: no check (the default).
	DigestOff DigestMode = iota
	// DigestWarn: a mismatch, or a tool list that cannot be digested, is a
	// warning (see [WithWarnings] and [Session.Warnings]); the session is
	// returned.
	DigestWarn
	// DigestFail: a mismatch makes Connect close the session and return a
	// *[DigestMismatchError]; a tool list that cannot be read or digested
	// is an error too.
	DigestFail
)

// String names the mode: "off", "warn" or "fail".
func (m DigestMode) String() string {
	switch m {
	case DigestOff:
		return "off"
	case DigestWarn:
		return "warn"
	case DigestFail:
		return "fail"
	}
	return "DigestMode(" + strconv.Itoa(int(m)) + ")"
}

// digestCheck is the configuration of WithDigestCheck.
type digestCheck struct {
	expected string
	mode     DigestMode
	// exportedAt is the protocol version the digest was recorded at ("" =
	// unknown: always compare).
	exportedAt string
}

// WithDigestCheck has [Connect], once connected, list the server's tools
// ([Session.ListToolsRaw]) and compare their digest with expected, the
// server digest that `mcpbind export` recorded in the bundle's "x-mcpbind"
// (generated code embeds it): "sha256:" and the SHA-256 of the RFC 8785
// canonical JSON of the tool objects sorted by name. A different digest
// means that the server's tool contract changed since the export, so the
// generated client may no longer fit it. mode says what a mismatch does; an
// empty expected, or [DigestOff], turns the check off.
//
// The digest covers the tools as the server lists them in the session's
// protocol era: a server that wraps results for clients before 2026-07-28
// lists other output schemas there, so compare with a digest exported in
// the same era.
func WithDigestCheck(expected string, mode DigestMode) Option {
	return Option{apply: func(c *config) { c.digest = digestCheck{expected: expected, mode: mode} }}
}

// WithDigestCheckAt is WithDigestCheck for a digest recorded at protocol
// version exportedAt (generated packages pass their bundle's version). The
// digest is compared only in a session of the same era — both before
// 2026-07-28, or both from it on — since servers may list wrapped output
// schemas to older clients; in a session of the other era the check is
// skipped with a warning instead of reporting a change that is not there.
func WithDigestCheckAt(expected, exportedAt string, mode DigestMode) Option {
	return Option{apply: func(c *config) {
		c.digest = digestCheck{expected: expected, mode: mode, exportedAt: exportedAt}
	}}
}

// DigestMismatchError is returned by [Connect] with [DigestFail] when the
// server's tools do not have the expected digest.
type DigestMismatchError struct {
	// Server names the server, as [ConnectError.Server] does.
	Server string
	// ProtocolVersion is the session's negotiated protocol version.
	ProtocolVersion string
	// Expected is the digest given to [WithDigestCheck].
	Expected string
	// Actual is the digest of the tools the server lists now.
	Actual string
	// Tools is how many tools the server lists now.
	Tools int
}

// Error says which server's tools changed, with both digests.
func (e *DigestMismatchError) Error() string {
	return "composition: " + e.describe()
}

// describe is the message without the package prefix, for warnings.
func (e *DigestMismatchError) describe() string {
	return fmt.Sprintf("%s: the server's tools changed since the bundle was exported: "+
		"their digest is %s, the bundle recorded %s (%d tools at protocol %s); re-export the bundle and regenerate the client",
		e.Server, e.Actual, e.Expected, e.Tools, e.ProtocolVersion)
}

// ServerDigest lists the server's tools and returns their digest, the value
// that [WithDigestCheck] compares: "sha256:" and the SHA-256 of the RFC 8785
// canonical JSON of the tool objects sorted by name.
func (s *Session) ServerDigest(ctx context.Context) (string, error) {
	d, _, err := s.serverDigest(ctx)
	return d, err
}

// serverDigest returns the digest and the number of tools.
func (s *Session) serverDigest(ctx context.Context) (string, int, error) {
	tools, err := s.ListToolsRaw(ctx)
	if err != nil {
		return "", 0, err
	}
	d, err := digest.Server(tools)
	if err != nil {
		return "", 0, fmt.Errorf("composition: %s: the tools have no digest: %w", s.c.Server(), err)
	}
	return d, len(tools), nil
}

// checkDigest runs the check of WithDigestCheck on a connected session. It
// returns s, or closes it and returns an error in DigestFail mode.
func (s *Session) checkDigest(ctx context.Context, cfg *config) (*Session, error) {
	dc := cfg.digest
	if dc.mode == DigestOff || dc.expected == "" {
		return s, nil
	}
	warn := s.c.Warn
	server, version := s.c.Server(), s.ProtocolVersion()
	if dc.exportedAt != "" && (dc.exportedAt >= ModernProtocolVersion) != (version >= ModernProtocolVersion) {
		warn(fmt.Sprintf("the digest of server %s's tools was recorded at protocol %s and is not compared in this %s session (the eras list output schemas differently)",
			server, dc.exportedAt, version))
		return s, nil
	}
	actual, n, err := s.serverDigest(ctx)
	switch {
	case err != nil && dc.mode == DigestFail:
		_ = s.Close()
		return nil, fmt.Errorf("checking the tools' digest: %w", err)
	case err != nil:
		warn(fmt.Sprintf("cannot check the digest of server %s's tools: %v", server, err))
		return s, nil
	case actual == dc.expected:
		return s, nil
	}
	mismatch := &DigestMismatchError{Server: server, ProtocolVersion: version, Expected: dc.expected, Actual: actual, Tools: n}
	if dc.mode == DigestFail {
		_ = s.Close()
		return nil, mismatch
	}
	warn(mismatch.describe())
	return s, nil
}
