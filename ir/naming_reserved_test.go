package ir

import (
	"go/token"
	"slices"
	"testing"
)

// TestTypeNameIsAnExportedIdentifier: whatever text names a type, TypeName
// gives an exported Go identifier.
func TestTypeNameIsAnExportedIdentifier(t *testing.T) {
	n := NewNamer(DefaultInitialisms())
	for in, want := range map[string]string{
		"Weather": "Weather", "error": "Error", "string": "String", "Foo Bar": "FooBar", "_": "Type", "": "Type",
		"a\nfunc init(){}": "AFuncInit", "Foo.Bar/Baz!": "FooBarBaz", "名前": "X名前", "json": "JSON",
	} {
		got := n.TypeName(in)
		if got != want || !token.IsIdentifier(got) || !token.IsExported(got) {
			t.Errorf("TypeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReservedNamesAreNeverClaimed: a package scope never hands out a
// generated package-level name, an import name or a predeclared
// identifier, and a field scope never hands out a generated method or
// field.
func TestReservedNamesAreNeverClaimed(t *testing.T) {
	pkg := newScope(ReservedPackageNames()...)
	for _, name := range []string{"Client", "Handler", "UnimplementedHandler", "Register", "server", "NewClient", "ServerDigest", "Pins", "schemas", "json", "context", "error", "string", "_", "init"} {
		if got := pkg.claim(name); got == name {
			t.Errorf("package scope handed out %q", name)
		}
	}
	fields := newFieldScope()
	for _, name := range slices.Concat(GeneratedMethods(), GeneratedFields()) {
		if got := fields.claim(name); got == name {
			t.Errorf("field scope handed out %q", name)
		}
	}
}
