package ir

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// dedupTypes declares structurally identical named types once per package:
// types with the same canonical sub-schema (the schema text at SchemaDoc#
// Pointer with its keys sorted, without its descriptions) and the same Go
// shape (kind, fields, tags, wrappers, enum values, variants, and,
// recursively, the types they use) become one type, and every reference
// points there. A tool's argument and result types are never merged: they
// are the tool's own API.
//
// The survivor is the group's first member in declaration order; its doc
// comment keeps that member's description (descriptions do not keep types
// apart) and its first line names every use. It returns, for each
// survivor, the provisional names of the members merged into it, from
// which nameTypes chooses the name (the shortest), so that the name does
// not depend on which member came first; and the dedup state, whose schema
// trees nameTypes reads titles from.
func dedupTypes(p *Package) (*dedup, map[*Type][]string) {
	roots := map[*Type]bool{}
	for _, t := range p.Tools {
		roots[t.Args], roots[t.Result] = true, true
	}
	d := &dedup{p: p, docs: map[string]*schemaNode{}, shared: map[int]*schemaNode{}, ids: map[string]int{}, sigs: map[*Type]int{}, visiting: map[*Type]bool{}}
	groups := map[int][]*Type{}
	var order []int
	for _, t := range p.Types {
		if roots[t] {
			continue
		}
		s := d.sig(t)
		if groups[s] == nil {
			order = append(order, s)
		}
		groups[s] = append(groups[s], t)
	}
	into := map[*Type]*Type{} // merged-away type → survivor
	aliases := map[*Type][]string{}
	for _, s := range order {
		g := groups[s]
		if len(g) < 2 {
			continue
		}
		keep := g[0]
		keep.Doc = d.mergedDoc(g)
		for _, t := range g[1:] {
			into[t] = keep
			aliases[keep] = append(aliases[keep], t.Name)
		}
	}
	if len(into) == 0 {
		return d, aliases
	}
	p.Types = slices.DeleteFunc(p.Types, func(t *Type) bool { return into[t] != nil })
	sub := func(t **Type) {
		if r := into[*t]; r != nil {
			*t = r
		}
	}
	var walk func(t *Type, seen map[*Type]bool)
	walk = func(t *Type, seen map[*Type]bool) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		for _, x := range []**Type{&t.Elem, &t.Extra} {
			if *x != nil {
				sub(x)
				walk(*x, seen)
			}
		}
		for _, f := range t.Fields {
			sub(&f.Type)
			walk(f.Type, seen)
		}
		if t.Union != nil {
			for _, v := range t.Union.Variants {
				sub(&v.Type)
				walk(v.Type, seen)
			}
		}
	}
	seen := map[*Type]bool{}
	for _, t := range p.Types {
		walk(t, seen)
	}
	for _, tool := range p.Tools {
		for _, x := range []**Type{&tool.Args, &tool.Result} {
			if *x != nil {
				sub(x)
				walk(*x, seen)
			}
		}
	}
	return d, aliases
}

// dedup holds the state of one dedupTypes pass.
//
// Signatures are interned: a type's signature is a small integer, the
// index of its local description (its own fields, with the signatures of
// the types it uses and of its schema as integers) in one table. Equal
// integers mean equal descriptions, so equal schemas and Go shapes all the
// way down, and the work and memory stay linear in the size of the schemas
// and types, whatever their nesting depth.
type dedup struct {
	p        *Package
	docs     map[string]*schemaNode // schema document key → its interned tree
	shared   map[int]*schemaNode    // exact signature → the one node with that text
	byKey    map[string]string      // schema document key → its JSON text
	ids      map[string]int         // local description → signature
	sigs     map[*Type]int
	visiting map[*Type]bool
}

// schemaNode is one JSON value of a schema document, shared by every
// document that holds the same text: exact is the signature of its text
// (keys sorted), id that of its canonical text (keys sorted, and the
// alternatives of an anyOf or oneOf in any order), each equal exactly when
// the texts are; an array's setID
// is the signature of its elements as a multiset; hasRef says whether the
// value holds a "$ref" or "$dynamicRef"; title is an object's string
// "title".
type schemaNode struct {
	exact  int // the signature of its text as written (alternatives in order)
	id     int
	setID  int
	hasRef bool
	title  string
	obj    map[string]*schemaNode
	arr    []*schemaNode
}

// intern returns the signature of a local description.
func (d *dedup) intern(desc string) int {
	if id, ok := d.ids[desc]; ok {
		return id
	}
	id := len(d.ids)
	d.ids[desc] = id
	return id
}

// node returns the value at doc#ptr, or nil when it cannot be found.
func (d *dedup) node(doc, ptr string) *schemaNode {
	n, ok := d.docs[doc]
	if !ok {
		if d.byKey == nil {
			d.byKey = make(map[string]string, len(d.p.Schemas))
			for _, s := range d.p.Schemas {
				d.byKey[s.Key] = s.JSON
			}
		}
		var v any
		if text, ok := d.byKey[doc]; ok && json.Unmarshal([]byte(text), &v) == nil {
			n = d.tree(v)
		}
		d.docs[doc] = n
	}
	for rest, more := strings.TrimPrefix(ptr, "/"), ptr != ""; more && n != nil; {
		var tok string
		tok, rest, more = strings.Cut(rest, "/")
		tok = jsonpointer.Unescape(tok)
		switch {
		case n.obj != nil:
			n = n.obj[tok]
		case n.arr != nil:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.arr) {
				return nil
			}
			n = n.arr[i]
		default:
			return nil
		}
	}
	return n
}

// tree interns the decoded JSON value v, bottom up: each value's
// description names its children by their signatures. Values with the same
// text are one node (the schemas of many tools share most of theirs).
func (d *dedup) tree(v any) *schemaNode {
	var exact strings.Builder // the text, in order: what makes values one node
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		kids := make([]*schemaNode, len(keys))
		exact.WriteString("o")
		for i, k := range keys {
			kids[i] = d.tree(x[k])
			fmt.Fprintf(&exact, " %q:%d", k, kids[i].exact)
		}
		e := d.intern(exact.String())
		if n := d.shared[e]; n != nil {
			return n
		}
		n := &schemaNode{exact: e, obj: make(map[string]*schemaNode, len(keys))}
		var canon strings.Builder
		canon.WriteString("O")
		for i, k := range keys {
			c := kids[i]
			n.obj[k] = c
			n.hasRef = n.hasRef || c.hasRef || k == "$ref" || k == "$dynamicRef"
			if annotation(k, x[k]) {
				continue // descriptions do not keep types apart (issue 17)
			}
			id := c.id
			if (k == "anyOf" || k == "oneOf") && c.arr != nil {
				id = c.setID // alternatives in any order are the same union
			}
			fmt.Fprintf(&canon, " %q:%d", k, id)
		}
		if t, ok := x["title"].(string); ok {
			n.title = t
		}
		n.id = d.intern(canon.String())
		d.shared[e] = n
		return n
	case []any:
		kids := make([]*schemaNode, len(x))
		exact.WriteString("a")
		for i, el := range x {
			kids[i] = d.tree(el)
			fmt.Fprintf(&exact, " %d", kids[i].exact)
		}
		e := d.intern(exact.String())
		if n := d.shared[e]; n != nil {
			return n
		}
		n := &schemaNode{exact: e, arr: kids}
		ids := make([]int, len(kids))
		for i, c := range kids {
			ids[i] = c.id
			n.hasRef = n.hasRef || c.hasRef
		}
		n.id = d.intern(fmt.Sprint("A", ids))
		slices.Sort(ids)
		n.setID = d.intern(fmt.Sprint("s", ids))
		d.shared[e] = n
		return n
	default:
		text, _ := json.Marshal(x)
		exact.WriteString("v")
		exact.Write(text)
		e := d.intern(exact.String())
		if n := d.shared[e]; n != nil {
			return n
		}
		n := &schemaNode{exact: e, id: e, hasRef: x == "$ref" || x == "$dynamicRef"}
		d.shared[e] = n
		return n
	}
}

// annotation reports whether the key k with the value v of a schema object
// is text for readers only: a string "description" or "$comment", or an
// "examples" array. (A property called "description" is an object or a
// boolean, so it still counts.)
func annotation(k string, v any) bool {
	switch v.(type) {
	case string:
		return k == "description" || k == "$comment"
	case []any:
		return k == "examples"
	}
	return false
}

// sig returns the structural signature of t: equal signatures mean the
// same canonical schema and the same Go shape. A type met again while its
// own signature is being built (recursion) signs as its unique name, so
// recursive types are never merged.
func (d *dedup) sig(t *Type) int {
	if t == nil {
		return d.intern("nil")
	}
	if s, ok := d.sigs[t]; ok {
		return s
	}
	if t.Named() && d.visiting[t] {
		return d.intern("@" + t.Name)
	}
	d.visiting[t] = true
	defer delete(d.visiting, t)
	var b strings.Builder
	fmt.Fprintf(&b, "{%s raw=%q closed=%v req=%q min=%d tag=%q/%q extra=%q:%d elem:%d", t.Kind, t.RawReason, t.Closed, t.Required, t.MinItems, t.Tag, t.TagValue, t.ExtraName, d.sig(t.Extra), d.sig(t.Elem))
	if t.Named() {
		n := d.node(t.SchemaDoc, t.Pointer)
		if n == nil || n.hasRef {
			// A $ref resolves inside its own document: no merging across documents.
			fmt.Fprintf(&b, " doc=%q", t.SchemaDoc)
			if n == nil {
				fmt.Fprintf(&b, " at=%q", t.Pointer)
			}
		}
		if n != nil {
			fmt.Fprintf(&b, " schema=%d", n.id)
		}
	}
	if t.Go != nil {
		fmt.Fprintf(&b, " go=%q", t.Go.Expr)
	}
	for _, f := range t.Fields {
		fmt.Fprintf(&b, " field(%s %q %d %v %v %q %d)", f.Name, f.JSONName, f.Wrap, f.Required, f.Nullable, f.Default, d.sig(f.Type))
	}
	if t.Enum != nil {
		// In any order too: an enum is a set of values (JSON Schema
		// "enum"), and one made of anyOf's consts lists them in the
		// alternatives' order.
		vs := make([]string, len(t.Enum.Values))
		for i, v := range t.Enum.Values {
			vs[i] = fmt.Sprintf(" %s=%s", strings.TrimPrefix(v.Const, t.Name), v.Literal)
		}
		slices.Sort(vs)
		fmt.Fprintf(&b, " enum(%d%s)", t.Enum.Base, strings.Join(vs, ""))
	}
	if t.Union != nil {
		fmt.Fprintf(&b, " union(%d %q", t.Union.By, t.Union.Tag)
		// In any order: alternatives the schema lists in another order
		// make the same union.
		vs := make([]string, len(t.Union.Variants))
		for i, v := range t.Union.Variants {
			vs[i] = fmt.Sprintf(" %s %q %q %q %d", v.Name, v.TagValue, v.JSONKind, v.UniqueProperty, d.sig(v.Type))
		}
		slices.Sort(vs)
		b.WriteString(strings.Join(vs, ""))
		b.WriteString(")")
	}
	b.WriteString("}")
	s := d.intern(b.String())
	d.sigs[t] = s
	return s
}

// mergedDoc is the survivor's doc comment: its first line names every
// use of the members ("Country is the type of AArgs.Country and
// BArgs.Country."; nameTypes sorts the uses, by their final names, with
// usesOnce); the rest is the first member's.
func (d *dedup) mergedDoc(g []*Type) []string {
	var uses []string
	for _, t := range g {
		if len(t.Doc) == 0 {
			continue
		}
		if u, ok := strings.CutPrefix(t.Doc[0], t.Name+" is the type of "); ok {
			uses = append(uses, strings.TrimSuffix(u, "."))
		}
	}
	doc := slices.Clone(g[0].Doc)
	if len(doc) > 0 && len(uses) == len(g) {
		doc[0] = g[0].Name + " is the type of " + joinAnd(uses) + "."
	}
	return doc
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
