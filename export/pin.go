package export

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Unpinned is a stdio server command that runs a package through a package
// runner (npx, npm exec, bunx, uvx, uv tool run, pipx run) without an exact
// version: the runner fetches whatever version is newest when it starts,
// so a bundle exported from it is a snapshot no one can reproduce.
type Unpinned struct {
	// Runner is the runner as the command names it: "npx", "npm exec",
	// "bunx", "uvx", "uv tool run" or "pipx run".
	Runner string
	// Package is the package argument as written ("@scope/pkg", "pkg@latest",
	// "pkg>=1").
	Package string
	// Pinned is how to write the package pinned, with VERSION standing for
	// the version to pin ("pkg@VERSION", "pkg==VERSION").
	Pinned string
}

// Warning is the sentence export prints for u: what is unpinned, why it
// matters and how to pin it.
func (u Unpinned) Warning() string {
	return fmt.Sprintf("the command runs %s with the unpinned package %q, so this contract snapshot is not reproducible "+
		"(%s fetches the newest version at each start); pin it in the command as %q",
		u.Runner, u.Package, u.Runner, u.Pinned)
}

// npmExact is an npm package argument that ends in an exact version:
// name@1.2.3, @scope/name@1.2.3-rc.1+build.
var npmExact = regexp.MustCompile(`^(@[^/@\s]+/)?[^@\s]+@v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$`)

// pyExact is a Python requirement pinned to one version: name==1.2,
// name[extra]===1.2, or uv's name@1.2.
var pyExact = regexp.MustCompile(`^[A-Za-z0-9._-]+(\[[^\]]*\])?\s*(===?\s*[0-9][^,;\s]*|@[0-9][^\s]*)$`)

// valueFlags are the flags of a runner family that take the next argument
// as their value (so it is not the package).
func valueFlags(family string) []string {
	switch family {
	case "npm":
		return []string{"--registry", "--cache", "--userconfig", "--prefix", "-w", "--workspace", "--call", "-c"}
	case "uv":
		return []string{"--with", "--with-editable", "--with-requirements", "--python", "-p", "--index", "--index-url", "--extra-index-url", "--default-index", "--find-links", "-f", "--directory", "--project", "--constraints", "--overrides", "--build-constraints"}
	}
	return []string{"--python", "--pip-args", "--index-url", "-i", "--editable", "-e"}
}

// UnpinnedPackage reports whether command (a stdio server's program and
// arguments, as configured) runs a registry package through a package
// runner without pinning its exact version. Local paths, URLs, git and
// file specs are not registry packages and are never reported, and neither
// is a command it does not recognise. It looks at the command only: a
// runner reached through a shell ("sh -c 'npx …'") is not seen.
func UnpinnedPackage(command []string) (Unpinned, bool) {
	if len(command) == 0 {
		return Unpinned{}, false
	}
	prog := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(command[0])), ".exe"), ".cmd")
	args := command[1:]
	var runner, family, packageFlag string
	switch {
	case prog == "npx" || prog == "bunx":
		runner, family, packageFlag = prog, "npm", "--package"
	case prog == "npm" && len(args) > 0 && (args[0] == "exec" || args[0] == "x"):
		runner, family, packageFlag, args = "npm "+args[0], "npm", "--package", args[1:]
	case prog == "uvx":
		runner, family, packageFlag = prog, "uv", "--from"
	case prog == "uv" && len(args) > 1 && args[0] == "tool" && args[1] == "run":
		runner, family, packageFlag, args = "uv tool run", "uv", "--from", args[2:]
	case prog == "pipx" && len(args) > 0 && args[0] == "run":
		runner, family, packageFlag, args = "pipx run", "pip", "--spec", args[1:]
	default:
		return Unpinned{}, false
	}
	pkg, found := "", false
	for i := 0; i < len(args) && !found; i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				pkg = args[i+1]
			}
			found = true
		case a == packageFlag || (family == "npm" && a == "-p"):
			if i+1 < len(args) {
				pkg, found = args[i+1], true
			}
			i++
		case strings.HasPrefix(a, packageFlag+"="):
			pkg, found = strings.TrimPrefix(a, packageFlag+"="), true
		case strings.HasPrefix(a, "-"):
			if slices.Contains(valueFlags(family), a) {
				i++
			}
		default:
			pkg, found = a, true
		}
	}
	if pkg == "" || !registryPackage(pkg) {
		return Unpinned{}, false
	}
	u := Unpinned{Runner: runner, Package: pkg}
	if family == "npm" {
		if npmExact.MatchString(pkg) {
			return Unpinned{}, false
		}
		u.Pinned = npmName(pkg) + "@VERSION"
		return u, true
	}
	if pyExact.MatchString(pkg) {
		return Unpinned{}, false
	}
	name := pkg
	if i := strings.IndexAny(name, "<>=!~@; "); i >= 0 {
		name = name[:i]
	}
	u.Pinned = name + "==VERSION"
	return u, true
}

// npmName is the package name of an npm package argument, without any
// version or tag.
func npmName(spec string) string {
	rest, scope := spec, ""
	if strings.HasPrefix(spec, "@") {
		if i := strings.Index(spec, "/"); i > 0 {
			scope, rest = spec[:i+1], spec[i+1:]
		}
	}
	name, _, _ := strings.Cut(rest, "@")
	return scope + name
}

// registryPackage reports whether a package argument names a package of a
// registry rather than a path, URL, git repository or file.
func registryPackage(spec string) bool {
	switch {
	case spec == "", strings.HasPrefix(spec, "."), strings.HasPrefix(spec, "/"), strings.HasPrefix(spec, "~"),
		strings.Contains(spec, "://"), strings.Contains(spec, "\\"),
		strings.HasPrefix(spec, "file:"), strings.HasPrefix(spec, "git+"), strings.HasPrefix(spec, "github:"),
		strings.HasSuffix(spec, ".tgz"), strings.HasSuffix(spec, ".whl"), strings.HasSuffix(spec, ".tar.gz"):
		return false
	}
	return true
}
