// Package servecheck checks, for tests, what `mcpbind generate --server`
// writes: it reads the data a generated server.go hands the runtime (each
// tool object and legacy outputSchema in Register), registers it on an
// mcp-go server through composition.Serve, and lists the tools in a
// session of the bundle's era, which must show every tool as the bundle
// holds it. It reads the generated source rather than the IR, so a
// template that dropped or mangled a decision would be caught; it runs in
// process, so a fuzz target can afford it for every input.
package servecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/schema"
	"github.com/mcpbind/mcpbind/ir"
)

// registered is what Register hands the runtime for one tool.
type registered struct {
	descriptor, toolJSON, legacy string
}

// Tools returns the tools the generated server.go source serverGo
// registers, as composition.ServedTools: the tool object and legacy
// outputSchema literals of each bindimpl.Handle or HandleNoArgs call in
// Register, with the descriptor the IR p gives client.go and schemas.go
// (name, Output, schema documents, natural pointer). Their handlers
// answer nothing; they are for listing.
func Tools(p *ir.Package, serverGo []byte) ([]composition.ServedTool, error) {
	regs, err := parseRegister(serverGo)
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	for _, d := range p.Schemas {
		docs[d.Key] = d.JSON
	}
	set := bindimpl.NewSchemaSet(docs)
	byVar := map[string]*ir.Tool{}
	for _, t := range p.Tools {
		byVar[t.DescriptorVar()] = t
	}
	var out []composition.ServedTool
	for _, r := range regs {
		t := byVar[r.descriptor]
		if t == nil {
			return nil, fmt.Errorf("Register serves %s, which the IR does not describe", r.descriptor)
		}
		desc := bindimpl.Tool{Name: t.Name, Output: bindimpl.Output(t.Output), Schemas: set,
			InputDoc: t.InputDoc, OutputDoc: t.OutputDoc, ResultPointer: t.NaturalPointer}
		st := bindimpl.HandleNoArgs(desc, r.toolJSON, func(context.Context) (any, error) { return nil, nil })
		if r.legacy != "" {
			st = st.WithLegacyOutputSchema(r.legacy)
		}
		out = append(out, st)
	}
	if len(out) != len(p.Tools) {
		return nil, fmt.Errorf("Register serves %d tools, the IR has %d", len(out), len(p.Tools))
	}
	return out, nil
}

// parseRegister reads the bindimpl.Handle and HandleNoArgs calls of
// server.go, with the WithLegacyOutputSchema call around each, if any.
func parseRegister(src []byte) ([]registered, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", src, 0)
	if err != nil {
		return nil, err
	}
	consts := map[string]ast.Expr{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						consts[n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	stringArg := func(call *ast.CallExpr, i int) (string, error) { return stringArg(call, i, consts) }
	legacyOf := map[*ast.CallExpr]string{}
	var handles []*ast.CallExpr
	var bad error
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "WithLegacyOutputSchema":
			inner, ok := sel.X.(*ast.CallExpr)
			s, err := stringArg(call, 0)
			if !ok || err != nil {
				bad = fmt.Errorf("a WithLegacyOutputSchema call not on a Handle call with a string constant")
				return false
			}
			legacyOf[inner] = s
		case "Handle", "HandleNoArgs":
			handles = append(handles, call)
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	var regs []registered
	for _, h := range handles {
		id, ok := h.Args[0].(*ast.Ident)
		toolJSON, err := stringArg(h, 1)
		if !ok || err != nil {
			return nil, fmt.Errorf("a Handle call without a descriptor variable and a tool object constant")
		}
		regs = append(regs, registered{descriptor: id.Name, toolJSON: toolJSON, legacy: legacyOf[h]})
	}
	return regs, nil
}

// stringArg returns the value of argument i of call, a string constant:
// a literal, a concatenation ("…" + "…", as long literals are wrapped) or
// a constant of the file (consts: name → value), such as a shared icon set.
func stringArg(call *ast.CallExpr, i int, consts map[string]ast.Expr) (string, error) {
	if len(call.Args) <= i {
		return "", fmt.Errorf("no argument %d", i)
	}
	var b strings.Builder
	if !stringConst(call.Args[i], consts, map[string]bool{}, &b) {
		return "", fmt.Errorf("argument %d is not a string constant", i)
	}
	return b.String(), nil
}

// stringConst writes to b the value of e, a string constant expression of
// server.go (literals, "+", parentheses, the file's constants), and reports
// whether e is one; resolving holds the constants being resolved, so a
// constant that refers to itself is not one.
func stringConst(e ast.Expr, consts map[string]ast.Expr, resolving map[string]bool, b *strings.Builder) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(e.Value)
		b.WriteString(s)
		return err == nil
	case *ast.ParenExpr:
		return stringConst(e.X, consts, resolving, b)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && stringConst(e.X, consts, resolving, b) && stringConst(e.Y, consts, resolving, b)
	case *ast.Ident:
		v, ok := consts[e.Name]
		if !ok || resolving[e.Name] {
			return false
		}
		resolving[e.Name] = true
		defer delete(resolving, e.Name)
		return stringConst(v, consts, resolving, b)
	}
	return false
}

// Era returns the protocol version of a session in srv's era, for
// composition.WithProtocolVersion: "2025-06-18" for a bundle exported
// before 2026-07-28, "" (the newest) otherwise.
func Era(srv *bundle.Server) string {
	if srv.ProtocolVersion < composition.ModernProtocolVersion {
		return "2025-06-18"
	}
	return ""
}

// CheckListing registers tools on a new mcp-go server (an error there is a
// failure: every generated package must register), lists them in a
// session of version, and returns one error per tool not listed as srv
// holds it: every member equal to the bundle's tool object as an mcp-go
// server lists it (asListed: the members mcp.Tool models, annotations
// always, {"type":"object"} for an absent inputSchema). One exception,
// decided by generate: toward a session before 2026-07-28, an outputSchema
// the bundle holds natural and whose root is not a plain object schema is
// listed as its envelope {"type":"object","properties":{"result":S},
// "required":["result"]} ($refs in S re-pointed under
// #/properties/result); it counts as listed when S, re-pointed back, is
// the bundle's schema.
func CheckListing(ctx context.Context, srv *bundle.Server, version string, tools []composition.ServedTool) []error {
	s := server.NewMCPServer(srv.ID, "0", server.WithToolCapabilities(false))
	if err := composition.Serve(s, tools); err != nil {
		return []error{fmt.Errorf("register: %w", err)}
	}
	sess, err := composition.Connect(ctx, composition.InProcess(s), composition.WithProtocolVersion(version))
	if err != nil {
		return []error{fmt.Errorf("connect: %w", err)}
	}
	defer sess.Close()
	listed, err := sess.ListToolsRaw(ctx)
	if err != nil {
		return []error{fmt.Errorf("list: %w", err)}
	}
	got := map[string]map[string]any{}
	for _, raw := range listed {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return []error{fmt.Errorf("listed tool %s: %w", raw, err)}
		}
		name, _ := m["name"].(string)
		got[name] = m
	}
	var errs []error
	if len(listed) != len(srv.Tools) {
		errs = append(errs, fmt.Errorf("listed %d tools, the bundle has %d", len(listed), len(srv.Tools)))
	}
	for _, tool := range srv.Tools {
		g, ok := got[tool.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("tool %q is not listed", tool.Name))
			continue
		}
		want, err := asListed(tool.Raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", tool.Name, err))
			continue
		}
		errs = append(errs, compare(tool.Name, g, want, version != "")...)
	}
	return errs
}

// asListed returns the bundle's tool object raw as an mcp-go server lists
// it: the members mcp.Tool models (an empty title or description, or a
// member at its zero value, is left out; annotations are always there),
// with the schemas as the bundle holds them ({"type":"object"} for an
// absent inputSchema, which MCP requires).
func asListed(raw json.RawMessage) (map[string]any, error) {
	var f struct {
		Name         string             `json:"name"`
		Title        string             `json:"title"`
		Description  string             `json:"description"`
		Annotations  mcp.ToolAnnotation `json:"annotations"`
		Meta         *mcp.Meta          `json:"_meta"`
		Icons        []mcp.Icon         `json:"icons"`
		Execution    *mcp.ToolExecution `json:"execution"`
		DeferLoading bool               `json:"defer_loading"`
		InputSchema  json.RawMessage    `json:"inputSchema"`
		OutputSchema json.RawMessage    `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	if f.InputSchema == nil {
		f.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	text, err := json.Marshal(mcp.Tool{Name: f.Name, Title: f.Title, Description: f.Description, Annotations: f.Annotations,
		Meta: f.Meta, Icons: f.Icons, Execution: f.Execution, DeferLoading: f.DeferLoading,
		RawInputSchema: f.InputSchema, RawOutputSchema: f.OutputSchema})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(text, &m)
}

// compare reports the members of the listed tool got that differ from the
// bundle's tool as listed, want.
func compare(name string, got, want map[string]any, legacy bool) []error {
	if legacy && want["outputSchema"] != nil && !reflect.DeepEqual(got["outputSchema"], want["outputSchema"]) {
		if inner, ok := envelopeOf(got["outputSchema"]); ok && reflect.DeepEqual(inner, want["outputSchema"]) {
			got = maps.Clone(got)
			got["outputSchema"] = want["outputSchema"]
		}
	}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(keys(got, want))) {
		if !reflect.DeepEqual(got[k], want[k]) {
			g, _ := json.Marshal(got[k])
			w, _ := json.Marshal(want[k])
			errs = append(errs, fmt.Errorf("tool %q, %q:\n listed %.300s\n bundle %.300s", name, k, g, w))
		}
	}
	return errs
}

// keys returns the keys of a and b.
func keys(a, b map[string]any) map[string]bool {
	k := map[string]bool{}
	for x := range a {
		k[x] = true
	}
	for x := range b {
		k[x] = true
	}
	return k
}

// envelopeOf returns S, re-pointed back, when v is exactly the envelope
// {"type":"object","properties":{"result":S},"required":["result"]}.
func envelopeOf(v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 3 || m["type"] != "object" || !reflect.DeepEqual(m["required"], []any{"result"}) {
		return nil, false
	}
	props, ok := m["properties"].(map[string]any)
	if !ok || len(props) != 1 || props["result"] == nil {
		return nil, false
	}
	text, err := json.Marshal(props["result"])
	if err != nil {
		return nil, false
	}
	back, err := schema.RewriteRefs(text, schema.Unpoint)
	if err != nil {
		return nil, false
	}
	var inner any
	return inner, json.Unmarshal(back, &inner) == nil
}
