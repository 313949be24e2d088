package diff

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/mcpbind/mcpbind/ir"
)

// goType is one named type of a generated package, with where it comes
// from: the tool, "args" or "result", and the JSON pointer of its schema
// (relative to the natural result schema for results). That origin, not
// the name, identifies a type across versions, so a type whose name changes
// (a new title, a resolved collision) is reported as renamed.
type goType struct {
	key  string
	tool string
	t    *ir.Type
}

// surface is the Go API of a generated package.
type surface struct {
	pkg    *ir.Package
	types  []*goType
	byKey  map[string]*goType
	byName map[string]*goType
}

func newSurface(p *ir.Package) *surface {
	s := &surface{pkg: p, byKey: map[string]*goType{}, byName: map[string]*goType{}}
	seen := map[*ir.Type]bool{}
	var walk func(t *ir.Type, tool, side, strip string)
	walk = func(t *ir.Type, tool, side, strip string) {
		if t == nil || seen[t] {
			return
		}
		if t.Named() {
			seen[t] = true
			ptr := t.Pointer
			if strip != "" && (ptr == strip || strings.HasPrefix(ptr, strip+"/")) {
				ptr = ptr[len(strip):]
			}
			key := tool + "\x00" + side + "\x00" + ptr
			for i := 2; s.byKey[key] != nil; i++ {
				key = fmt.Sprintf("%s\x00%s\x00%s#%d", tool, side, ptr, i)
			}
			gt := &goType{key: key, tool: tool, t: t}
			s.types = append(s.types, gt)
			s.byKey[key] = gt
			s.byName[t.Name] = gt
		}
		walk(t.Elem, tool, side, strip)
		walk(t.Extra, tool, side, strip)
		for _, f := range t.Fields {
			walk(f.Type, tool, side, strip)
		}
		if t.Union != nil {
			for _, v := range t.Union.Variants {
				walk(v.Type, tool, side, strip)
			}
		}
	}
	for _, tool := range p.Tools {
		walk(tool.Args, tool.Name, "args", "")
		walk(tool.Result, tool.Name, "result", naturalPointer(tool))
	}
	for _, t := range p.Types { // none expected: every type hangs off a tool
		walk(t, "", "type", "")
	}
	return s
}

// compareAPI compares the Go packages generated from two versions of a
// server: changes attributed to a tool (its method and the types reached
// from its arguments and result), and changes to the package as a whole.
func compareAPI(server string, op *ir.Package, oerr error, np *ir.Package, nerr error) (map[string][]Change, []Change) {
	byTool := map[string][]Change{}
	var rest []Change
	apiChange := func(tool, ptr, code, msg, old, new string) {
		c := Change{Class: API, Server: server, Tool: tool, Where: InGo, Pointer: ptr, Code: code, Message: msg}
		if old != "" {
			c.Old, _ = json.Marshal(old)
		}
		if new != "" {
			c.New, _ = json.Marshal(new)
		}
		if tool == "" {
			rest = append(rest, c)
		} else {
			byTool[tool] = append(byTool[tool], c)
		}
	}
	switch {
	case oerr != nil && nerr != nil:
		return nil, nil
	case nerr != nil:
		apiChange("", "", "go-generate-failed", "the Go package can no longer be generated: "+nerr.Error(), "", "")
		return nil, rest
	case oerr != nil:
		apiChange("", "", "go-generate-fixed", "the Go package could not be generated from the old bundle ("+oerr.Error()+"); now it can", "", "")
		return nil, rest
	}

	os, ns := newSurface(op), newSurface(np)
	// Match types by origin, then by name.
	match := map[*goType]*goType{} // new → old
	used := map[*goType]bool{}
	for _, nt := range ns.types {
		if ot := os.byKey[nt.key]; ot != nil && !used[ot] {
			match[nt], used[ot] = ot, true
		}
	}
	for _, nt := range ns.types {
		if _, ok := match[nt]; ok {
			continue
		}
		if ot := os.byName[nt.t.Name]; ot != nil && !used[ot] {
			match[nt], used[ot] = ot, true
		}
	}
	renames := map[string]string{}
	for nt, ot := range match {
		if ot.t.Name != nt.t.Name {
			renames[ot.t.Name] = nt.t.Name
		}
	}
	rn := func(goType string) string { return renameIdents(goType, renames) }

	// Methods, tool by tool.
	oldTools := map[string]*ir.Tool{}
	for _, t := range op.Tools {
		oldTools[t.Name] = t
	}
	newTools := map[string]bool{}
	for _, nt := range np.Tools {
		newTools[nt.Name] = true
		ot := oldTools[nt.Name]
		ptr := "Client." + nt.Method
		if ot == nil {
			apiChange(nt.Name, ptr, "go-method-added", "method added: "+signature(nt), "", signature(nt))
			continue
		}
		if ot.Method != nt.Method {
			apiChange(nt.Name, ptr, "go-method-renamed", "method renamed: Client."+ot.Method+" → Client."+nt.Method, ot.Method, nt.Method)
		}
		if oa, na := argsGoType(ot), argsGoType(nt); rn(oa) != na {
			apiChange(nt.Name, ptr, "go-method-args-changed", "arguments: "+orNone(oa)+" → "+orNone(na), oa, na)
		}
		if or, nr := ot.ResultGoType(), nt.ResultGoType(); rn(or) != nr {
			apiChange(nt.Name, ptr, "go-method-result-changed", "result: "+or+" → "+nr, or, nr)
		}
	}
	for _, ot := range op.Tools {
		if !newTools[ot.Name] {
			apiChange(ot.Name, "Client."+ot.Method, "go-method-removed", "method removed: "+signature(ot), signature(ot), "")
		}
	}

	// Types.
	for _, nt := range ns.types {
		ot, ok := match[nt]
		if !ok {
			apiChange(nt.tool, nt.t.Name, "go-type-added", "type added: "+nt.t.Name+" ("+typeKind(nt.t)+")", "", typeKind(nt.t))
			continue
		}
		compareGoType(ot, nt, rn, apiChange)
	}
	for _, ot := range os.types {
		if !used[ot] {
			apiChange(ot.tool, ot.t.Name, "go-type-removed", "type removed: "+ot.t.Name+" ("+typeKind(ot.t)+")", typeKind(ot.t), "")
		}
	}
	return byTool, rest
}

// compareGoType compares two versions of a named type.
func compareGoType(o, n *goType, rn func(string) string, emit func(tool, ptr, code, msg, old, new string)) {
	ot, nt := o.t, n.t
	tool := n.tool
	if ot.Name != nt.Name {
		emit(tool, nt.Name, "go-type-renamed", "type renamed: "+ot.Name+" → "+nt.Name, ot.Name, nt.Name)
	}
	if ok, nk := typeKind(ot), typeKind(nt); rn(ok) != nk {
		emit(tool, nt.Name, "go-type-changed", "type "+nt.Name+": "+ok+" → "+nk, ok, nk)
		return
	}
	switch nt.Kind {
	case ir.KindStruct:
		type field struct{ name, goType string }
		fields := func(t *ir.Type) (map[string]field, []string) {
			m := map[string]field{}
			var order []string
			for _, f := range t.Fields {
				m[f.JSONName] = field{f.Name, f.GoType()}
				order = append(order, f.JSONName)
			}
			if t.ExtraName != "" && t.Extra != nil {
				const extra = "\x00additional properties"
				m[extra] = field{t.ExtraName, "map[string]" + t.Extra.GoType()}
				order = append(order, extra)
			}
			return m, order
		}
		of, oOrder := fields(ot)
		nf, nOrder := fields(nt)
		for _, k := range nOrder {
			f := nf[k]
			ptr := nt.Name + "." + f.name
			old, ok := of[k]
			switch {
			case !ok:
				emit(tool, ptr, "go-field-added", "field added: "+f.name+" "+f.goType, "", f.goType)
				continue
			case old.name != f.name:
				emit(tool, ptr, "go-field-renamed", "field renamed: "+nt.Name+"."+old.name+" → "+f.name, old.name, f.name)
			}
			if rn(old.goType) != f.goType {
				emit(tool, ptr, "go-field-type-changed", "field "+f.name+": "+old.goType+" → "+f.goType, old.goType, f.goType)
			}
		}
		for _, k := range oOrder {
			if _, ok := nf[k]; !ok {
				f := of[k]
				emit(tool, nt.Name+"."+f.name, "go-field-removed", "field removed: "+f.name+" "+f.goType, f.goType, "")
			}
		}
	case ir.KindEnum:
		oc := map[string]string{}
		for _, v := range ot.Enum.Values {
			oc[v.Literal] = v.Const
		}
		nc := map[string]bool{}
		for _, v := range nt.Enum.Values {
			nc[v.Literal] = true
			old, ok := oc[v.Literal]
			switch {
			case !ok:
				emit(tool, v.Const, "go-const-added", "constant added: "+v.Const+" = "+v.Literal, "", v.Literal)
			case old != v.Const:
				emit(tool, v.Const, "go-const-renamed", "constant renamed: "+old+" → "+v.Const, old, v.Const)
			}
		}
		for _, v := range ot.Enum.Values {
			if !nc[v.Literal] {
				emit(tool, v.Const, "go-const-removed", "constant removed: "+v.Const+" = "+v.Literal, v.Literal, "")
			}
		}
	case ir.KindUnion:
		ov := map[string]string{}
		for _, v := range ot.Union.Variants {
			ov[v.Name] = v.GoType()
		}
		nv := map[string]bool{}
		for _, v := range nt.Union.Variants {
			nv[v.Name] = true
			ptr := nt.Name + "." + v.Name
			old, ok := ov[v.Name]
			switch {
			case !ok:
				emit(tool, ptr, "go-variant-added", "union field added: "+v.Name+" "+v.GoType(), "", v.GoType())
			case rn(old) != v.GoType():
				emit(tool, ptr, "go-variant-type-changed", "union field "+v.Name+": "+old+" → "+v.GoType(), old, v.GoType())
			}
		}
		for _, v := range ot.Union.Variants {
			if !nv[v.Name] {
				emit(tool, nt.Name+"."+v.Name, "go-variant-removed", "union field removed: "+v.Name+" "+v.GoType(), v.GoType(), "")
			}
		}
	}
}

// typeKind describes what a named type is declared as: "struct", "union",
// "string enum", or its underlying type ("map[string]json.RawMessage").
func typeKind(t *ir.Type) string {
	switch t.Kind {
	case ir.KindStruct:
		return "struct"
	case ir.KindUnion:
		return "union"
	case ir.KindEnum:
		return t.Enum.BaseGoType() + " enum"
	}
	return t.Underlying()
}

// signature renders a client method.
func signature(t *ir.Tool) string {
	args := "ctx context.Context"
	if t.Args != nil {
		args += ", args " + t.Args.GoType()
	}
	return fmt.Sprintf("%s(%s) (%s, error)", t.Method, args, t.ResultGoType())
}

func argsGoType(t *ir.Tool) string {
	if t.Args == nil {
		return ""
	}
	return t.Args.GoType()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// renameIdents replaces whole identifiers in a Go type expression.
func renameIdents(expr string, renames map[string]string) string {
	if len(renames) == 0 {
		return expr
	}
	var b strings.Builder
	rs := []rune(expr)
	for i := 0; i < len(rs); {
		if !isIdentRune(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isIdentRune(rs[j]) {
			j++
		}
		id := string(rs[i:j])
		// A qualified identifier (json.RawMessage) is not a package type.
		if to, ok := renames[id]; ok && (i == 0 || rs[i-1] != '.') {
			id = to
		}
		b.WriteString(id)
		i = j
	}
	return b.String()
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
