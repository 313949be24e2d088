package tooldiff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// compareVariant compares two matched alternatives at path.
func (c *comparer) compareVariant(o, n *variant, path *jpath) {
	if o.own != nil || n.own != nil {
		oo, no := o.own, n.own
		if oo == nil {
			oo = map[string]bool{}
		}
		if no == nil {
			no = map[string]bool{}
		}
		c.compareNotes(o.v, n.v, oo, no, path)
	}
	c.compareEnum(o, n, path)
	all := o.kind == "any" || n.kind == "any"
	fam := n.family()
	if all || fam == "object" {
		c.compareObject(o.v, n.v, path)
	}
	if all || fam == "array" {
		c.compareArray(o.v, n.v, path)
	}
	if all || fam == "string" {
		c.compareBound(o.v, n.v, "minLength", true, path)
		c.compareBound(o.v, n.v, "maxLength", false, path)
		c.compareStrings(o.v.patterns, n.v.patterns, "pattern", path)
		c.compareStrings(o.v.formats, n.v.formats, "format", path)
	}
	if all || fam == "number" {
		c.compareBound(o.v, n.v, "minimum", true, path)
		c.compareBound(o.v, n.v, "maximum", false, path)
		c.compareMultipleOf(o.v, n.v, path)
	}
}

// compareEnum compares the allowed values of two alternatives.
func (c *comparer) compareEnum(o, n *variant, path *jpath) {
	kw := cmpOr(n.v.enumKw, o.v.enumKw, "enum")
	ptr := path.child(kw)
	oe, ne := o.v.hasEnum, n.v.hasEnum
	switch {
	case !oe && !ne:
	case !oe:
		c.emit(ptr, narrowed, "enum", "enum narrowed: values restricted to "+listValues(n.enum), nil, n.enum)
	case !ne:
		c.emit(ptr, widened, "enum", "enum widened: any value of the type now (was "+listValues(o.enum)+")", o.enum, nil)
	default:
		gone := valuesMinus(o.enum, n.enum)
		fresh := valuesMinus(n.enum, o.enum)
		switch {
		case len(gone) == 0 && len(fresh) == 0:
		case len(fresh) == 0:
			c.emit(ptr, narrowed, "enum", "enum narrowed: removed "+listValues(gone), o.enum, n.enum)
		case len(gone) == 0:
			c.emit(ptr, widened, "enum", "enum widened: added "+listValues(fresh), o.enum, n.enum)
		default:
			c.emit(ptr, changed, "enum", "enum changed: added "+listValues(fresh)+", removed "+listValues(gone), o.enum, n.enum)
		}
	}
}

func valuesMinus(a, b []any) []any {
	in := map[string]bool{}
	for _, e := range b {
		in[canonical(e)] = true
	}
	var out []any
	for _, e := range a {
		if !in[canonical(e)] {
			out = append(out, e)
		}
	}
	return out
}

func listValues(vs []any) string {
	parts := make([]string, 0, len(vs))
	for i, e := range vs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-i))
			break
		}
		parts = append(parts, display(e))
	}
	return strings.Join(parts, ", ")
}

func cmpOr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// apState returns whether additionalProperties is false in a view, and its
// constraining schemas otherwise.
func apState(d *doc, v *view) (closed bool, schemas []string) {
	for _, p := range v.apPtrs {
		if n, _ := d.at(p); n == false {
			return true, nil
		}
	}
	return false, v.apPtrs
}

// compareObject compares the object keywords of two views.
func (c *comparer) compareObject(o, n *view, path *jpath) {
	oClosed, oAP := apState(c.old, o)
	nClosed, nAP := apState(c.new, n)
	names := slices.Clone(n.propNames)
	for _, name := range o.propNames {
		if _, ok := n.props[name]; !ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		op, inO := o.props[name]
		np, inN := n.props[name]
		pp := path.child("properties", name)
		oReq, nReq := o.required[name], n.required[name]
		switch {
		case inO && inN:
			c.compareNode(op, np, pp)
			c.compareRequired(oReq, nReq, pp)
		case inN && oReq:
			// Required before without a schema of its own.
			c.compareNode(nil, np, pp)
			c.compareRequired(oReq, nReq, pp)
		case inN:
			c.propertyAdded(np, nReq, oClosed, oAP, pp)
		case nReq:
			c.compareNode(op, nil, pp)
			c.compareRequired(oReq, nReq, pp)
		default:
			c.propertyRemoved(op, oReq, nClosed, nAP, pp)
		}
	}
	// Required names without a property schema on either side.
	reqNames := slices.Clone(n.reqNames)
	for _, name := range o.reqNames {
		if !n.required[name] {
			reqNames = append(reqNames, name)
		}
	}
	for _, name := range reqNames {
		if _, ok := o.props[name]; ok {
			continue
		}
		if _, ok := n.props[name]; ok {
			continue
		}
		switch {
		case n.required[name] && !o.required[name]:
			c.emit(path.child("required"), narrowed, "required", fmt.Sprintf("property %q is now required", name), nil, name)
		case o.required[name] && !n.required[name]:
			c.emit(path.child("required"), widened, "required", fmt.Sprintf("property %q is no longer required", name), name, nil)
		}
	}

	apPtr := path.child("additionalProperties")
	switch {
	case oClosed && nClosed:
	case nClosed:
		c.emit(apPtr, narrowed, "additional-properties", "additionalProperties is now false: properties the schema does not list are rejected", nil, false)
	case oClosed:
		msg := "additionalProperties is no longer false: objects may carry properties the schema does not list"
		if c.dir == Output {
			msg += " (structs generated from the old schema reject them)"
		}
		c.emit(apPtr, widened, "additional-properties", msg, false, nil)
	case len(oAP) > 0 || len(nAP) > 0:
		c.compareNode(oAP, nAP, apPtr)
	}

	pats := slices.Clone(n.patNames)
	for _, p := range o.patNames {
		if _, ok := n.patProps[p]; !ok {
			pats = append(pats, p)
		}
	}
	for _, p := range pats {
		op, inO := o.patProps[p]
		np, inN := n.patProps[p]
		pp := path.child("patternProperties", p)
		switch {
		case inO && inN:
			c.compareNode(op, np, pp)
		case inN && oClosed:
			c.emit(pp, widened, "pattern-properties", "new patternProperties entry: properties matching it are now allowed", nil, nil)
		case inN:
			c.emit(pp, narrowed, "pattern-properties", "new patternProperties entry constrains properties matching it", nil, nil)
		case nClosed:
			c.emit(pp, narrowed, "pattern-properties", "patternProperties entry removed: properties matching it are now rejected", nil, nil)
		default:
			c.emit(pp, widened, "pattern-properties", "patternProperties entry removed", nil, nil)
		}
	}
	if len(o.propNamesPtrs) > 0 || len(n.propNamesPtrs) > 0 {
		c.compareNode(o.propNamesPtrs, n.propNamesPtrs, path.child("propertyNames"))
	}
	c.compareBound(o, n, "minProperties", true, path)
	c.compareBound(o, n, "maxProperties", false, path)

	deps := slices.Sorted(func(yield func(string) bool) {
		for k := range n.depReq {
			if !yield(k) {
				return
			}
		}
		for k := range o.depReq {
			if _, ok := n.depReq[k]; !ok && !yield(k) {
				return
			}
		}
	})
	for _, k := range deps {
		ptr := path.child("dependentRequired", k)
		fresh, gone := stringsMinus(n.depReq[k], o.depReq[k]), stringsMinus(o.depReq[k], n.depReq[k])
		switch {
		case len(fresh) > 0 && len(gone) > 0:
			c.emit(ptr, changed, "dependent-required", fmt.Sprintf("properties required with %q changed", k), nil, nil)
		case len(fresh) > 0:
			c.emit(ptr, narrowed, "dependent-required", fmt.Sprintf("with %q present, now also required: %s", k, strings.Join(fresh, ", ")), nil, nil)
		case len(gone) > 0:
			c.emit(ptr, widened, "dependent-required", fmt.Sprintf("with %q present, no longer required: %s", k, strings.Join(gone, ", ")), nil, nil)
		}
	}
}

func stringsMinus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// compareRequired reports a property becoming required or optional.
func (c *comparer) compareRequired(oReq, nReq bool, pp *jpath) {
	switch {
	case !oReq && nReq:
		msg := "property made required"
		if c.dir == Output {
			msg = "property now always present (required)"
		}
		c.emit(pp, narrowed, "required", msg, nil, nil)
	case oReq && !nReq:
		msg := "property no longer required"
		if c.dir == Output {
			msg = "property no longer required: it may be absent, and structs generated from the old schema reject that"
		}
		c.emit(pp, widened, "required", msg, nil, nil)
	}
}

// propertyAdded reports a property the old schema did not list.
func (c *comparer) propertyAdded(np []string, required, oldClosed bool, oldAP []string, pp *jpath) {
	schema := c.schemaValue(c.new, np)
	switch {
	case c.dir == Input && required:
		c.put(Change{Class: Breaking, Pointer: pp.String(), Code: "property-added", Message: "new required property"}, nil, schema)
	case c.dir == Input:
		c.put(Change{Class: Compatible, Pointer: pp.String(), Code: "property-added", Message: "new optional property"}, nil, schema)
	case oldClosed:
		c.put(Change{Class: Breaking, Pointer: pp.String(), Code: "property-added",
			Message: "new property where additionalProperties was false: structs generated from the old schema reject it"}, nil, schema)
	default:
		c.put(Change{Class: Compatible, Pointer: pp.String(), Code: "property-added", Message: "new property"}, nil, schema)
	}
	if !oldClosed && len(oldAP) > 0 {
		// Its values used to be governed by additionalProperties.
		c.compareNode(oldAP, np, pp)
	}
}

// propertyRemoved reports a property the new schema no longer lists.
func (c *comparer) propertyRemoved(op []string, required, newClosed bool, newAP []string, pp *jpath) {
	schema := c.schemaValue(c.old, op)
	switch {
	case c.dir == Output:
		c.put(Change{Class: Breaking, Pointer: pp.String(), Code: "property-removed", Message: "property removed"}, schema, nil)
	case newClosed:
		c.put(Change{Class: Breaking, Pointer: pp.String(), Code: "property-removed",
			Message: "property removed and additionalProperties is false: the server now rejects it"}, schema, nil)
	default:
		c.put(Change{Class: Compatible, Pointer: pp.String(), Code: "property-removed",
			Message: "property removed (additionalProperties still admits it)"}, schema, nil)
		if len(newAP) > 0 {
			c.compareNode(op, newAP, pp)
		}
	}
}

// schemaValue returns the (first) schema at ptrs, for Change.Old/New.
func (c *comparer) schemaValue(d *doc, ptrs []string) any {
	if len(ptrs) == 0 {
		return nil
	}
	v, _ := d.at(ptrs[0])
	return v
}

// compareArray compares the array keywords of two views.
func (c *comparer) compareArray(o, n *view, path *jpath) {
	if o.hasItems || n.hasItems {
		c.compareNode(o.items, n.items, path.child("items"))
	}
	for i := 0; i < max(len(o.prefix), len(n.prefix)); i++ {
		var op, np []string
		if i < len(o.prefix) {
			op = o.prefix[i]
		}
		if i < len(n.prefix) {
			np = n.prefix[i]
		}
		c.compareNode(op, np, path.child("prefixItems", strconv.Itoa(i)))
	}
	switch cp := path.child("contains"); {
	case len(o.contains) > 0 && len(n.contains) > 0:
		c.compareNode(o.contains, n.contains, cp)
	case len(n.contains) > 0:
		c.emit(cp, narrowed, "contains", "contains added: the array must hold a matching item", nil, nil)
	case len(o.contains) > 0:
		c.emit(cp, widened, "contains", "contains removed", nil, nil)
	}
	c.compareBound(o, n, "minItems", true, path)
	c.compareBound(o, n, "maxItems", false, path)
	if len(o.contains) > 0 || len(n.contains) > 0 {
		c.compareBound(o, n, "minContains", true, path)
		c.compareBound(o, n, "maxContains", false, path)
	}
	switch up := path.child("uniqueItems"); {
	case !o.uniqueItems && n.uniqueItems:
		c.emit(up, narrowed, "unique-items", "items must now be unique", nil, true)
	case o.uniqueItems && !n.uniqueItems:
		c.emit(up, widened, "unique-items", "items no longer need to be unique", true, nil)
	}
}

// boundDefault is the value an absent lower bound means.
func boundDefault(kw string) (bound, bool) {
	switch kw {
	case "minLength", "minItems", "minProperties":
		return bound{val: new(big.Rat)}, true
	case "minContains":
		return bound{val: big.NewRat(1, 1)}, true
	}
	return bound{}, false
}

// compareBound compares one bound keyword; for "minimum" and "maximum" it
// covers the exclusive forms too.
func (c *comparer) compareBound(o, n *view, kw string, lower bool, path *jpath) {
	ob, oOK := o.bounds[kw]
	nb, nOK := n.bounds[kw]
	def, hasDef := boundDefault(kw)
	if !oOK && hasDef {
		ob, oOK = def, true
	}
	if !nOK && hasDef {
		nb, nOK = def, true
	}
	if !oOK && !nOK || oOK && nOK && ob.val.Cmp(nb.val) == 0 && ob.excl == nb.excl {
		return
	}
	name := func(b bound) string {
		if !b.excl {
			return kw
		}
		if lower {
			return "exclusiveMinimum"
		}
		return "exclusiveMaximum"
	}
	show := func(b bound) string {
		s := ratString(b.val)
		switch {
		case b.excl && lower:
			return ">" + s
		case b.excl:
			return "<" + s
		}
		return s
	}
	num := func(b bound) any { return jsonNumber(b.val) }
	switch {
	case !oOK:
		c.emit(path.child(name(nb)), narrowed, "bound", fmt.Sprintf("%s added: %s", name(nb), show(nb)), nil, num(nb))
	case !nOK:
		c.emit(path.child(name(ob)), widened, "bound", fmt.Sprintf("%s removed (was %s)", name(ob), show(ob)), num(ob), nil)
	case tighter(nb, ob, lower):
		verb := "raised"
		if !lower {
			verb = "lowered"
		}
		c.emit(path.child(name(nb)), narrowed, "bound", fmt.Sprintf("%s %s: %s → %s", kw, verb, show(ob), show(nb)), num(ob), num(nb))
	default:
		verb := "lowered"
		if !lower {
			verb = "raised"
		}
		c.emit(path.child(name(nb)), widened, "bound", fmt.Sprintf("%s %s: %s → %s", kw, verb, show(ob), show(nb)), num(ob), num(nb))
	}
}

// compareMultipleOf compares multipleOf.
func (c *comparer) compareMultipleOf(o, n *view, path *jpath) {
	ptr := path.child("multipleOf")
	var om, nm *big.Rat
	if len(o.multipleOf) > 0 {
		om = o.multipleOf[0]
	}
	if len(n.multipleOf) > 0 {
		nm = n.multipleOf[0]
	}
	divides := func(a, b *big.Rat) bool { return new(big.Rat).Quo(b, a).IsInt() } // every multiple of b is one of a
	switch {
	case om == nil && nm == nil:
	case om == nil:
		c.emit(ptr, narrowed, "multiple-of", "multipleOf added: "+ratString(nm), nil, jsonNumber(nm))
	case nm == nil:
		c.emit(ptr, widened, "multiple-of", "multipleOf removed (was "+ratString(om)+")", jsonNumber(om), nil)
	case om.Cmp(nm) == 0:
	case divides(om, nm):
		c.emit(ptr, narrowed, "multiple-of", "multipleOf narrowed: "+ratString(om)+" → "+ratString(nm), jsonNumber(om), jsonNumber(nm))
	case divides(nm, om):
		c.emit(ptr, widened, "multiple-of", "multipleOf widened: "+ratString(om)+" → "+ratString(nm), jsonNumber(om), jsonNumber(nm))
	default:
		c.emit(ptr, changed, "multiple-of", "multipleOf changed: "+ratString(om)+" → "+ratString(nm), jsonNumber(om), jsonNumber(nm))
	}
}

// compareStrings compares the values of a string keyword (pattern, format)
// taken as constraints: one added narrows, one removed widens.
func (c *comparer) compareStrings(o, n []string, kw string, path *jpath) {
	fresh, gone := stringsMinus(n, o), stringsMinus(o, n)
	ptr := path.child(kw)
	first := func(s []string) any {
		if len(s) == 0 {
			return nil
		}
		return s[0]
	}
	switch {
	case len(fresh) == 0 && len(gone) == 0:
	case len(gone) == 0:
		c.emit(ptr, narrowed, kw, fmt.Sprintf("%s added: %q", kw, fresh[0]), nil, fresh[0])
	case len(fresh) == 0:
		c.emit(ptr, widened, kw, fmt.Sprintf("%s removed (was %q)", kw, gone[0]), gone[0], nil)
	default:
		c.emit(ptr, changed, kw, fmt.Sprintf("%s changed: %q → %q", kw, gone[0], fresh[0]), first(gone), first(fresh))
	}
}

// jsonNumber turns a number back into a JSON value.
func jsonNumber(r *big.Rat) any { return json.Number(ratString(r)) }
