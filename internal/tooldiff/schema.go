package tooldiff

import (
	"fmt"
	"slices"
	"strings"
)

// Direction says which way values flow through a schema, which decides
// whether narrowing or widening it breaks clients.
type Direction int

const (
	// Input is a tool's inputSchema: the client sends the values, so a
	// schema that accepts fewer values than before is breaking.
	Input Direction = iota
	// Output is a tool's outputSchema: the server sends the values and
	// generated code decodes them, so a schema that admits more values than
	// before is breaking.
	Output
)

// String returns "input" or "output".
func (d Direction) String() string {
	if d == Output {
		return "output"
	}
	return "input"
}

// CompareSchema compares two versions of one JSON Schema document, a
// tool's inputSchema or outputSchema, in direction d. The changes it returns
// have Where set (InInput or InOutput) and no Server or Tool. It fails only
// when old or new is not JSON. Envelopes are not looked for: Compare does
// that, through the IR.
func CompareSchema(old, new []byte, d Direction) ([]Change, error) {
	return CompareSchemaAt(old, new, "", "", d)
}

// maxSteps bounds the sub-schema comparisons of one document pair; the
// recursion guard already makes comparisons finite, this keeps them small
// when $refs fan out.
const maxSteps = 20000

// maxVariants bounds the alternatives a schema is split into.
const maxVariants = 64

// compareDocs compares two decoded schema documents, starting at the
// natural schema pointers oldRoot and newRoot.
func compareDocs(old, new any, oldRoot, newRoot string, d Direction) []Change {
	c := &comparer{dir: d, old: &doc{root: old}, new: &doc{root: new}, stack: map[string]bool{}}
	c.compareNode([]string{oldRoot}, []string{newRoot}, (*jpath)(nil).plus(newRoot))
	return c.out
}

// effect is how a change moves the set of values a schema admits.
type effect int

const (
	narrowed effect = iota + 1 // fewer values are valid
	widened                    // more values are valid
	changed                    // some values gained, others lost, or unknown
)

// String returns "narrowed", "widened" or "changed".
func (e effect) String() string {
	switch e {
	case narrowed:
		return "narrowed"
	case widened:
		return "widened"
	}
	return "changed"
}

// comparer compares two schema documents in one direction.
type comparer struct {
	dir      Direction
	old, new *doc
	out      []Change
	stack    map[string]bool // view pairs being compared: the recursion guard
	steps    int
}

func (c *comparer) where() Where {
	if c.dir == Output {
		return InOutput
	}
	return InInput
}

// classOf classifies an effect in the comparer's direction.
func (c *comparer) classOf(e effect) Class {
	switch {
	case e == changed:
		return Breaking
	case (e == narrowed) == (c.dir == Input):
		return Breaking
	}
	return Compatible
}

// emit records a change whose class follows from its effect; its code is
// stem-effect ("type-narrowed").
func (c *comparer) emit(ptr *jpath, e effect, stem, msg string, old, new any) {
	c.put(Change{Class: c.classOf(e), Pointer: ptr.String(), Code: stem + "-" + e.String(), Message: msg}, old, new)
}

// put records a change; old and new are decoded JSON values, or nil.
func (c *comparer) put(ch Change, old, new any) {
	ch.Where = c.where()
	if old != nil {
		ch.Old = encodeJSON(old)
	}
	if new != nil {
		ch.New = encodeJSON(new)
	}
	c.out = append(c.out, ch)
}

// compareNode compares the schemas at oldPtrs and newPtrs (conjunctions;
// empty means "any value"), reporting at path.
func (c *comparer) compareNode(oldPtrs, newPtrs []string, path *jpath) {
	c.steps++
	if c.steps == maxSteps {
		c.put(Change{Class: Breaking, Pointer: path.String(), Code: "comparison-incomplete",
			Message: fmt.Sprintf("comparison stopped after %d sub-schemas; what lies further was not compared", maxSteps)}, nil, nil)
	}
	if c.steps >= maxSteps {
		return
	}
	ov := expand(c.old, oldPtrs, nil)
	nv := expand(c.new, newPtrs, nil)
	key := ov.key + "\x01" + nv.key
	if c.stack[key] {
		return // recursion: this pair is being compared further up
	}
	c.stack[key] = true
	defer delete(c.stack, key)

	c.compareNotes(ov, nv, nil, nil, path)
	c.compareVariants(variants(c.old, ov, "", nil, 0), variants(c.new, nv, "", nil, 0), path)
}

// compareNotes compares annotations (cosmetic) and keywords mcpbind does
// not model (breaking when changed), restricted to the schemas in oldOwn
// and newOwn when those are not nil.
func (c *comparer) compareNotes(ov, nv *view, oldOwn, newOwn map[string]bool, path *jpath) {
	pick := func(list []tagged, own map[string]bool) []tagged {
		if own == nil {
			return list
		}
		var out []tagged
		for _, t := range list {
			if own[t.ptr] {
				out = append(out, t)
			}
		}
		return out
	}
	same := func(a, b []tagged) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if canonical(a[i].val) != canonical(b[i].val) {
				return false
			}
		}
		return true
	}
	for _, set := range []struct {
		o, n       map[string][]tagged
		oOrd, nOrd []string
		opaque     bool
	}{{ov.notes, nv.notes, ov.notesOrder, nv.notesOrder, false}, {ov.opaque, nv.opaque, ov.opaqueOrd, nv.opaqueOrd, true}} {
		keys := slices.Clone(set.nOrd)
		for _, k := range set.oOrd {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			o, n := pick(set.o[k], oldOwn), pick(set.n[k], newOwn)
			if same(o, n) {
				continue
			}
			var oldVal, newVal any
			verb := "changed"
			switch {
			case len(o) == 0:
				verb, newVal = "added", n[0].val
			case len(n) == 0:
				verb, oldVal = "removed", o[0].val
			default:
				oldVal, newVal = o[0].val, n[0].val
			}
			ptr := path.child(k)
			if set.opaque {
				c.put(Change{Class: Breaking, Pointer: ptr.String(), Code: "keyword-changed",
					Message: fmt.Sprintf("%s %s; mcpbind cannot tell which values it admits now, so it counts as breaking", k, verb)}, oldVal, newVal)
				continue
			}
			c.put(Change{Class: Cosmetic, Pointer: ptr.String(), Code: "annotation-" + verb, Message: k + " " + verb}, oldVal, newVal)
		}
	}
}

// kindSet returns the distinct kinds of variants, in kind order.
func kindSet(vs []variant) []string {
	var ks []string
	for _, v := range vs {
		if !slices.Contains(ks, v.kind) {
			ks = append(ks, v.kind)
		}
	}
	slices.SortFunc(ks, func(x, y string) int { return kindRank(x) - kindRank(y) })
	return ks
}

func kindsString(ks []string) string {
	if len(ks) == 0 {
		return "nothing"
	}
	return strings.Join(ks, "|")
}

// covers reports whether a value of kind k is admitted by the kinds ks.
func covers(ks []string, k string) bool {
	return slices.Contains(ks, k) || slices.Contains(ks, "any") || (k == "integer" && slices.Contains(ks, "number"))
}

// setEffect compares two kind sets.
func setEffect(old, new []string) (effect, bool) {
	newInOld := !slices.ContainsFunc(new, func(k string) bool { return !covers(old, k) })
	oldInNew := !slices.ContainsFunc(old, func(k string) bool { return !covers(new, k) })
	switch {
	case newInOld && oldInNew:
		return 0, false
	case newInOld:
		return narrowed, true
	case oldInNew:
		return widened, true
	}
	return changed, true
}

// compareVariants compares two schemas split into alternatives: their
// types, then alternatives added and removed, then each matched pair.
func (c *comparer) compareVariants(ovs, nvs []variant, path *jpath) {
	ok, nk := kindSet(ovs), kindSet(nvs)
	if e, differ := setEffect(ok, nk); differ {
		c.emit(path.child("type"), e, "type", fmt.Sprintf("type %s: %s → %s", e, kindsString(ok), kindsString(nk)),
			kindsString(ok), kindsString(nk))
	}
	pairs, removed, added := c.matchVariants(ovs, nvs)
	hasFamily := func(vs []variant, fam string) bool {
		return slices.ContainsFunc(vs, func(x variant) bool { return x.family() == fam })
	}
	for _, r := range removed {
		if hasFamily(nvs, r.family()) {
			c.emit(path.plus(r.label), narrowed, "alternative", "alternative removed: "+describe(r), nil, nil)
		}
	}
	for _, a := range added {
		if hasFamily(ovs, a.family()) {
			c.emit(path.plus(a.label), widened, "alternative", "alternative added: "+describe(a), nil, nil)
		}
	}
	for _, p := range pairs {
		c.compareVariant(p[0], p[1], path.plus(p[1].label))
	}
}
