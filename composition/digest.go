package composition

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
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
	// returned and every call goes on.
	DigestWarn
	// DigestFail: without pinned tools, a mismatch makes Connect close the
	// session and return a *[DigestMismatchError]. With pinned tools
	// ([WithPins]) Connect succeeds and only the calls of a tool
	// that changed or was removed fail, with a *[ToolChangedError]. A tool
	// list that cannot be read at Connect is an error in both cases (and,
	// without pinned tools, one that cannot be digested).
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
	// tools are the descriptors whose Digest pins each tool (pin.go):
	// copies of those given to WithPins.
	tools []*bindimpl.Tool
	// compare classifies how a pinned tool changed; nil: by digest only.
	compare PinComparer
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

// Pins is what a generated package pins of its server, from its bundle's
// "x-mcpbind": the server digest, the protocol version the bundle was
// exported at, and the descriptors of the tools whose digest the bundle
// recorded. A generated package declares it as its variable Pins; pass it to
// pinning.DigestCheck (package composition/pinning) or to [WithPins].
type Pins struct {
	// Digest is the server digest (see [WithDigestCheck]); "" when the
	// bundle records none.
	Digest string
	// ProtocolVersion is the protocol version the bundle was exported at
	// ("" = unknown: the digests are compared in every session).
	ProtocolVersion string
	// Tools are the descriptors of the tools to pin; those whose Digest is
	// "" are not pinned.
	Tools []*bindimpl.Tool
}

// WithPins is [WithDigestCheck] for what a generated package pins (p, its
// variable Pins), with compare to classify how a pinned tool changed. Most
// programs pass p to pinning.DigestCheck instead, which gives the
// comparer that classifies a change as `mcpbind diff` does; WithPins with
// a nil compare checks digests only, so that the program does not link the
// diff engine.
//
// The server digest p.Digest is compared only in a session of the same
// era as p.ProtocolVersion — both before 2026-07-28, or both from it on —
// since servers may list wrapped output schemas to older clients; in a
// session of the other era the check is skipped with a warning instead of
// reporting a change that is not there.
//
// A tool of p.Tools with a Digest (the tool's digest from the bundle's
// "x-mcpbind", which generated packages embed) is pinned: it is compared
// with the live tool at Connect — so at every reconnect of a [Registry],
// which connects a new session — and again whenever the server sends
// notifications/tools/list_changed (for 2026-07-28 sessions through a
// subscriptions/listen stream, SEP-2575, when the server advertises
// tools.listChanged), or every [WithPinRecheck] interval. With pinned tools
// the server digest no longer decides alone: under [DigestFail] a call of a
// tool that changed or was removed fails with a *[ToolChangedError] (and is
// not sent) while the other tools keep working, and Connect fails only when
// the tool list cannot be read; under [DigestWarn] each change is a
// warning ([WithWarnings], [Session.Warnings]) and calls go on. A server
// digest that differs while every pinned tool matches (tools were added,
// or tools the package does not call changed) is a warning in both modes.
// When the server says its tools changed but they cannot be listed again,
// the pinned tools' calls fail under DigestFail (each first tries the
// listing again) until they can.
//
// A pinned tool whose live digest differs is passed to compare, which says
// what changed: in a session of the bundle's era, a tool for which compare
// finds no change is reported as one [Cosmetic] change "tool-rewritten"
// (its JSON differs, its meaning does not); in a session of the other era,
// whose listing may differ in form (the {"result": …} envelope a server adds
// for sessions before 2026-07-28, SEP-2106), only the changes compare finds
// count. With a nil compare a tool whose digest differs is one [Breaking]
// change "tool-changed", and in a session of the other era the tools are
// not compared (a warning says so), as the server digest is not.
//
// A Streamable HTTP session asked for a protocol version before 2026-07-28
// ([WithProtocolVersion]) with pinned tools holds the standalone GET stream
// open so that the notification arrives between requests; one that
// negotiated such a version by falling back receives it only on the
// response stream of a request in flight (mcp-go cannot open the GET
// stream without pinning the version).
func WithPins(p Pins, mode DigestMode, compare PinComparer) Option {
	dc := digestCheck{expected: p.Digest, mode: mode, exportedAt: p.ProtocolVersion, compare: compare}
	for _, t := range p.Tools {
		if t != nil {
			c := *t
			dc.tools = append(dc.tools, &c)
		}
	}
	o := Option{apply: func(c *config) { c.digest = dc }}
	if mode != DigestOff && dc.pinned() != nil {
		o.conn = []mcpconn.Option{mcpconn.WithToolListStream()}
	}
	return o
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
	if dc.mode == DigestOff || dc.expected == "" && dc.pinned() == nil {
		return s, nil
	}
	warn := s.warnLogged
	server, version := s.c.Server(), s.ProtocolVersion()
	crossEra := dc.exportedAt != "" && (dc.exportedAt >= ModernProtocolVersion) != (version >= ModernProtocolVersion)
	if pins := dc.pinned(); pins != nil && (dc.compare != nil || !crossEra) {
		return s.checkPins(ctx, cfg, pins, crossEra)
	}
	if crossEra && dc.pinned() != nil {
		warn(fmt.Sprintf("the digests of server %s's tools were recorded at protocol %s and are not compared in this %s session (the eras list output schemas differently, and no PinComparer compares them by meaning)",
			server, dc.exportedAt, version))
		return s, nil
	}
	if crossEra {
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
