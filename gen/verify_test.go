package gen

import (
	"errors"
	"strings"
	"testing"
)

// TestVerifyRefusesUnplannedOutput tampers with a good generated package
// in each way the verifier must catch, and checks that it refuses.
func TestVerifyRefusesUnplannedOutput(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := g.Bundle(loadGolden(t, "hostile"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := outs[0].IR
	planned := map[string][]string{"client.go": clientImports(p), "types.go": typesImports(p), "schemas.go": {importBindimpl}}
	if err := verify(p, outs[0].Files, planned); err != nil {
		t.Fatalf("the good package: %v", err)
	}
	for _, tc := range []struct {
		name, file, edit, want string
	}{
		{"init", "types.go", "$\nfunc init() {}\n", "an init function"},
		{"go:generate", "types.go", "$\n//go:generate touch x\n", "a directive"},
		{"line", "client.go", "$\n//line x.go:1\n", "a directive"},
		{"export", "client.go", "$\n//export F\n", "a directive"},
		{"extern", "client.go", "$\n//extern f\n", "a directive"},
		{"block", "client.go", "$\n/*line x.go:1*/\n", "a block"},
		{"cgo", "client.go", "$\n// #cgo LDFLAGS: -lx\n", "a cgo"},
		{"unplanned var", "schemas.go", "$\nvar Pwned = 1\n", "unplanned declaration Pwned"},
		{"unplanned type", "types.go", "$\ntype Pwned int\n", "unplanned type Pwned"},
		{"unplanned func", "types.go", "$\nfunc Pwned() {}\n", "unplanned function Pwned"},
		{"unplanned method", "types.go", "$\nfunc (Client) Pwned() {}\n", "unplanned method Client.Pwned"},
		// Method names planned for one receiver, declared on another.
		{"tool method on a type", "types.go", "$\nfunc (" + p.Types[0].Name + ") " + p.Tools[0].Method + "() {}\n", "unplanned method " + p.Types[0].Name + "." + p.Tools[0].Method},
		{"type method on Client", "client.go", "$\nfunc (Client) Validate() error { return nil }\n", "unplanned method Client.Validate"},
		{"type method on UnimplementedHandler", "client.go", "$\nfunc (UnimplementedHandler) Validate() error { return nil }\n", "unplanned method UnimplementedHandler.Validate"},
		{"unplanned method on UnimplementedHandler", "client.go", "$\nfunc (UnimplementedHandler) Pwned() {}\n", "unplanned method UnimplementedHandler.Pwned"},
		{"type method on an unplanned type", "types.go", "$\nfunc (Pwned) Validate() error { return nil }\n", "unplanned method Pwned.Validate"},
		{"import C", "schemas.go", "^import \"C\"\n", "unplanned import"},
		{"unplanned import", "schemas.go", "^import \"os/exec\"\n", "unplanned import \"os/exec\""},
		{"renamed planned import", "schemas.go", "^import c \"" + importComposition + "\"\n", "unplanned import"},
		// Names the plan has, but not as variables.
		{"var Client", "schemas.go", "$\nvar Client = 1\n", "unplanned declaration Client"},
		{"var Handler", "schemas.go", "$\nvar Handler = 1\n", "unplanned declaration Handler"},
		{"var UnimplementedHandler", "schemas.go", "$\nvar UnimplementedHandler = 1\n", "unplanned declaration UnimplementedHandler"},
		{"var named like a function", "schemas.go", "$\nvar Marshal = 1\n", "unplanned declaration Marshal"},
		{"no header", "schemas.go", "-", "header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := append([]File(nil), outs[0].Files...)
			for i, f := range files {
				if f.Name != tc.file {
					continue
				}
				src := string(f.Content)
				switch {
				case tc.edit == "-":
					src = strings.TrimPrefix(src, GeneratedHeader)
				case tc.edit[0] == '^':
					src = strings.Replace(src, "\nimport ", "\n"+tc.edit[1:]+"import ", 1)
				default:
					src += tc.edit[1:]
				}
				files[i] = File{Name: f.Name, Content: []byte(src)}
			}
			err := verify(p, files, planned)
			var ue *UnsafeOutputError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("verify = %v, want an UnsafeOutputError with %q", err, tc.want)
			}
		})
	}
}
