package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/mcpbind/mcpbind/bundle"
)

// ldflagsVersion is a release version set at link time by a packager that
// builds without module information:
//
//	go build -ldflags "-X main.ldflagsVersion=v1.2.3" ./cmd/mcpbind
//
// It is written only by the linker; the build info's version, when it is a
// release, wins.
var ldflagsVersion string

// buildVersion describes this build: the module version and the VCS facts
// that runtime/debug.ReadBuildInfo gives.
type buildVersion struct {
	// Module is the main module's version: a release ("v1.2.3", from go
	// install …@v1.2.3 or -ldflags), a pseudo-version (a build from a
	// checkout, Go 1.24+), or "(devel)".
	Module string
	// Revision is the VCS revision the binary was built from ("" when not
	// stamped, as under go run); Time its commit time (RFC 3339), Modified
	// whether the work tree had uncommitted changes.
	Revision string
	Time     string
	Modified bool
}

// readBuildVersion reads bi (nil: no build info) and ldflags, the
// -ldflags version.
func readBuildVersion(bi *debug.BuildInfo, ldflags string) buildVersion {
	v := buildVersion{Module: "(devel)"}
	if bi != nil {
		if bi.Main.Version != "" {
			v.Module = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if ldflags != "" && v.Release() == "" {
		v.Module = ldflags
	}
	return v
}

// thisBuild is the buildVersion of the running binary.
func thisBuild() buildVersion {
	bi, _ := debug.ReadBuildInfo()
	return readBuildVersion(bi, ldflagsVersion)
}

// Release returns the module version when it is a release (a semantic
// version that is neither a pseudo-version nor "+dirty"), else "".
func (v buildVersion) Release() string {
	m := v.Module
	if !semver.IsValid(m) || module.IsPseudoVersion(m) || strings.Contains(m, "+") {
		return ""
	}
	return m
}

// String is what --version prints after "mcpbind version ": the module
// version, then in parentheses the revision (12 hex digits), its time and
// "modified" when known; "devel" for a build without a module version.
func (v buildVersion) String() string {
	s := v.Module
	if s == "(devel)" {
		s = "devel"
	}
	var facts []string
	if v.Revision != "" {
		facts = append(facts, "revision "+shortRevision(v.Revision))
	}
	if v.Time != "" {
		facts = append(facts, v.Time)
	}
	if v.Modified {
		facts = append(facts, "modified")
	}
	if len(facts) > 0 {
		s += " (" + strings.Join(facts, ", ") + ")"
	}
	return s
}

func shortRevision(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// stampVersion records the release version of this mcpbind under the
// x-mcpbind member of each freshly exported server (see
// bundle.Facts.MCPBindVersion). A build from a checkout records nothing, so
// that re-exports from a work tree do not change checked-in bundles.
func stampVersion(servers []bundle.Server, v buildVersion) error {
	rel := v.Release()
	if rel == "" {
		return nil
	}
	for i := range servers {
		f, err := servers[i].Facts()
		if err != nil {
			return err
		}
		f.MCPBindVersion = rel
		if err := servers[i].SetFacts(f); err != nil {
			return fmt.Errorf("recording the mcpbind version: %w", err)
		}
	}
	return nil
}
