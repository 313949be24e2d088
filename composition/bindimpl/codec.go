package bindimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// codecKind is how a codec encodes and decodes its Go type.
type codecKind uint8

const (
	codecPlain    codecKind = iota // no described type inside: encoding/json
	codecPointer                   // *T with a described type inside
	codecSlice                     // []T with a described type inside
	codecMap                       // map[string]T with a described type inside
	codecNullable                  // Nullable[T] with a described type inside
	codecObject                    // a described struct
	codecUnion                     // a described union
	codecTuple                     // a described tuple
	codecRaw                       // a described raw-JSON type
	codecString                    // a string kind without UnmarshalJSON
	codecBool                      // a bool kind without UnmarshalJSON
)

// codec is the encoder and decoder of one Go type, built once by codecFor.
type codec struct {
	kind   codecKind
	info   *TypeInfo
	fields []objectField   // codecObject: the property fields in order
	known  map[string]bool // codecObject: the property names with a field (and a variant's tag)
	index  map[string]int  // codecObject: property name → position in fields
	extra  int             // codecObject: index of the extras map field, or -1
	rest   int             // codecTuple: index of the Rest field, or -1
	name   string          // the Go type's name, for errors
}

// objectField is one property field of a described struct.
type objectField struct {
	index    int
	name     string
	key      []byte // the property name as a JSON string
	omitZero bool
	def      []byte // the schema "default" (nil when none)
}

// nullableType is implemented by every *Nullable[T].
type nullableType interface{ isNullable() }

func (*Nullable[T]) isNullable() {}

var nullableIface = reflect.TypeFor[nullableType]()

// codecFor returns the codec of rt, building and caching it on first use.
func (t *Types) codecFor(rt reflect.Type) *codec {
	if c, ok := t.codecs.Load(rt); ok {
		return c.(*codec)
	}
	c, _ := t.codecs.LoadOrStore(rt, t.build(rt))
	return c.(*codec)
}

// build makes the codec of rt. A described type whose description carries
// no rule of its own (an enum, a named slice or map) is coded as its kind,
// like an undescribed one: through its elements' codecs when they hold a
// described type, so the runtime never hands a described value back to
// encoding/json (whose MarshalJSON and UnmarshalJSON would come back here:
// once per level, O(depth²), for a deep value).
func (t *Types) build(rt reflect.Type) *codec {
	c := &codec{kind: codecPlain, name: rt.Name(), extra: -1, rest: -1}
	info := t.info[rt]
	if info == nil || (!info.Raw && info.Union == notUnion && info.Tuple == 0 && rt.Kind() != reflect.Struct) {
		if !t.elemsDescribed(rt, map[reflect.Type]bool{}) {
			switch k := fastKind(rt); {
			case k != codecPlain:
				c.kind = k
			case rt.Kind() == reflect.Pointer && fastKind(rt.Elem()) != codecPlain:
				c.kind = codecPointer
			}
			return c
		}
		switch {
		case reflect.PointerTo(rt).Implements(nullableIface):
			c.kind = codecNullable
		case rt.Kind() == reflect.Pointer:
			c.kind = codecPointer
		case rt.Kind() == reflect.Slice:
			c.kind = codecSlice
		case rt.Kind() == reflect.Map && rt.Key().Kind() == reflect.String:
			c.kind = codecMap
		}
		return c
	}
	c.info = info
	switch {
	case info.Raw:
		c.kind = codecRaw
	case info.Union != notUnion:
		c.kind = codecUnion
	case info.Tuple > 0:
		c.kind = codecTuple
		if rt.NumField() > info.Tuple {
			c.rest = info.Tuple
		}
	case rt.Kind() == reflect.Struct:
		c.kind = codecObject
		c.known, c.index = map[string]bool{}, map[string]int{}
		if info.Tag != "" {
			c.known[info.Tag] = true
		}
		for i := range rt.NumField() {
			f := rt.Field(i)
			if f.Name == info.Extra && info.Extra != "" {
				c.extra = i
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			key, _ := json.Marshal(name)
			of := objectField{index: i, name: name, key: key, omitZero: strings.Contains(opts, "omitzero") || strings.Contains(opts, "omitempty")}
			if d, ok := info.Defaults[name]; ok && json.Valid([]byte(d)) {
				of.def = []byte(d)
			}
			c.index[name] = len(c.fields)
			c.fields = append(c.fields, of)
			c.known[name] = true
		}
	}
	return c
}

// describedInside reports whether a value of rt can hold a described type
// (itself, or through pointers, slices, maps and Nullable), so
// encoding/json alone would miss its rules.
func (t *Types) describedInside(rt reflect.Type, seen map[reflect.Type]bool) bool {
	return t.info[rt] != nil || t.elemsDescribed(rt, seen)
}

// elemsDescribed is describedInside for what rt holds, leaving out rt.
func (t *Types) elemsDescribed(rt reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[rt] {
		return false
	}
	seen[rt] = true
	switch rt.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return t.describedInside(rt.Elem(), seen)
	case reflect.Struct:
		if reflect.PointerTo(rt).Implements(nullableIface) {
			return t.describedInside(rt.Field(0).Type, seen)
		}
	}
	return false
}

// decode decodes data into the addressable value rv. x holds the spans of
// the text data is a slice of (nil when it is not a slice of that text).
func (t *Types) decode(data []byte, rv reflect.Value, x *spans) error {
	c := t.codecFor(rv.Type())
	switch c.kind {
	case codecPointer:
		if isNull(data) {
			rv.SetZero()
			return nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return t.decode(data, rv.Elem(), x)
	case codecSlice:
		if isNull(data) {
			rv.SetZero()
			return nil
		}
		items, ok := splitArray(data, nil, x)
		if !ok {
			return json.Unmarshal(data, rv.Addr().Interface()) // its error
		}
		s := reflect.MakeSlice(rv.Type(), len(items), len(items))
		for i, raw := range items {
			if err := t.decode(raw, s.Index(i), x); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		rv.Set(s)
		return nil
	case codecMap:
		if isNull(data) {
			rv.SetZero()
			return nil
		}
		m, err := t.decodeMap(data, rv.Type(), x)
		if err != nil {
			return err
		}
		rv.Set(m)
		return nil
	case codecNullable:
		rv.SetZero()
		rv.FieldByName("Set").SetBool(true)
		if isNull(data) {
			rv.FieldByName("Null").SetBool(true)
			return nil
		}
		return t.decode(data, rv.FieldByName("Value"), x)
	case codecObject:
		return c.decodeObject(t, data, rv, x)
	case codecUnion:
		return c.decodeUnion(t, data, rv, x)
	case codecTuple:
		return c.decodeTuple(t, data, rv, x)
	case codecRaw:
		rv.SetBytes(append([]byte(nil), data...))
		return nil
	case codecString:
		if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data) {
			rv.SetString(string(data[1 : n-1]))
			return nil
		}
	case codecBool:
		switch string(data) {
		case "true", "false":
			rv.SetBool(data[0] == 't')
			return nil
		}
	}
	return json.Unmarshal(data, rv.Addr().Interface())
}

// decodeMap decodes a JSON object into a new map of type mt.
func (t *Types) decodeMap(data []byte, mt reflect.Type, x *spans) (reflect.Value, error) {
	ms, ok := splitObject(data, nil, x)
	if !ok {
		m := reflect.New(mt)
		return reflect.Value{}, json.Unmarshal(data, m.Interface()) // its error
	}
	m := reflect.MakeMapWithSize(mt, len(ms))
	for _, mb := range ms {
		k, ok := mb.key()
		if !ok {
			return reflect.Value{}, fmt.Errorf("malformed property name %q", mb.name)
		}
		e := reflect.New(mt.Elem()).Elem()
		if err := t.decode(mb.value, e, x); err != nil {
			return reflect.Value{}, fmt.Errorf("property %q: %w", k, err)
		}
		m.SetMapIndex(reflect.ValueOf(k).Convert(mt.Key()), e)
	}
	return m, nil
}

// members splits a JSON object into its members (anything else is an
// error naming the type).
func (c *codec) members(data []byte, buf []member, x *spans) ([]member, error) {
	ms, ok := splitObject(data, buf, x)
	if !ok {
		return nil, fmt.Errorf("%s: want a JSON object, got %s", c.name, abbreviateJSON(data))
	}
	return ms, nil
}

// lookup returns the value of the last member named name (JSON objects
// with repeated names keep the last, as encoding/json does).
func lookup(ms []member, name string) ([]byte, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if k, ok := ms[i].key(); ok && k == name {
			return ms[i].value, true
		}
	}
	return nil, false
}

// named reports whether the member's name is exactly name, without
// allocating for a name that has no escapes.
func (m member) named(name string) bool {
	if bytes.IndexByte(m.name, '\\') < 0 {
		return string(m.name) == name
	}
	k, ok := m.key()
	return ok && k == name
}

func (c *codec) decodeObject(t *Types, data []byte, rv reflect.Value, x *spans) error {
	var stack [16]member
	ms, err := c.members(data, stack[:0], x)
	if err != nil {
		return err
	}
	for _, r := range c.info.Required {
		found := false
		for _, m := range ms {
			if m.named(r) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: missing required property %q", c.name, r)
		}
	}
	var unknown []string
	for _, m := range ms {
		if bytes.IndexByte(m.name, '\\') < 0 && c.known[string(m.name)] {
			continue
		}
		k, ok := m.key()
		if !ok {
			return fmt.Errorf("%s: malformed property name %q", c.name, m.name)
		}
		if !c.known[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	unknown = slices.Compact(unknown)
	if c.info.Closed && len(unknown) > 0 {
		return fmt.Errorf("%s: property %q is not allowed (additionalProperties is false)", c.name, unknown[0])
	}
	rv.SetZero()
	var seenStack [16]bool
	seen := seenStack[:0]
	if len(c.fields) > len(seenStack) {
		seen = make([]bool, len(c.fields))
	} else {
		seen = seenStack[:len(c.fields)]
	}
	for _, m := range ms {
		i, ok := c.index[string(m.name)]
		if !ok {
			k, _ := m.key()
			if i, ok = c.index[k]; !ok {
				continue
			}
		}
		f := c.fields[i]
		seen[i] = true
		if err := t.decode(m.value, rv.Field(f.index), x); err != nil {
			return fmt.Errorf("%s: property %q: %w", c.name, f.name, err)
		}
	}
	for i, f := range c.fields {
		if seen[i] || f.def == nil {
			continue
		}
		// A default that does not decode is ignored.
		fv := rv.Field(f.index)
		if d := reflect.New(fv.Type()).Elem(); t.decode(f.def, d, nil) == nil { // not a slice of the text: no spans
			fv.Set(d)
		}
	}
	if c.extra < 0 || len(unknown) == 0 {
		return nil
	}
	xv := rv.Field(c.extra)
	xm := reflect.MakeMapWithSize(xv.Type(), len(unknown))
	for _, k := range unknown {
		raw, _ := lookup(ms, k)
		e := reflect.New(xv.Type().Elem()).Elem()
		if err := t.decode(raw, e, x); err != nil {
			return fmt.Errorf("%s: property %q: %w", c.name, k, err)
		}
		xm.SetMapIndex(reflect.ValueOf(k), e)
	}
	xv.Set(xm)
	return nil
}

func (c *codec) decodeUnion(t *Types, data []byte, rv reflect.Value, x *spans) error {
	rv.SetZero()
	pick := -1
	switch c.info.Union {
	case UnionByTag:
		ms, err := c.members(data, nil, x)
		if err != nil {
			return err
		}
		raw, ok := lookup(ms, c.info.UnionTag)
		if !ok {
			return fmt.Errorf("%s: the object has no %q property", c.name, c.info.UnionTag)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if pick = slices.Index(c.info.Cases, buf.String()); pick < 0 {
			return fmt.Errorf("%s: no variant has %s = %s", c.name, c.info.UnionTag, buf.String())
		}
	case UnionByKind:
		kind := jsonKind(data)
		if pick = slices.Index(c.info.Cases, kind); pick < 0 {
			if pick = slices.Index(c.info.Cases, ""); pick < 0 {
				return fmt.Errorf("%s: a JSON %s matches no variant", c.name, kind)
			}
		}
	case UnionByRequired:
		ms, err := c.members(data, nil, x)
		if err != nil {
			return err
		}
		for i, p := range c.info.Cases {
			if _, ok := lookup(ms, p); ok {
				pick = i
				break
			}
		}
		if pick < 0 {
			return fmt.Errorf("%s: the object has none of the properties that tell the variants apart", c.name)
		}
	}
	if err := t.decode(data, rv.Field(pick), x); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

func (c *codec) decodeTuple(t *Types, data []byte, rv reflect.Value, x *spans) error {
	items, ok := splitArray(data, nil, x)
	if !ok {
		return fmt.Errorf("%s: want a JSON array, got %s", c.name, abbreviateJSON(data))
	}
	n := c.info.Tuple
	if len(items) < c.info.MinItems {
		return fmt.Errorf("%s: want at least %d items, got %d", c.name, c.info.MinItems, len(items))
	}
	if len(items) > n && c.rest < 0 {
		return fmt.Errorf("%s: want at most %d items, got %d", c.name, n, len(items))
	}
	rv.SetZero()
	for i := 0; i < n && i < len(items); i++ {
		if err := t.decode(items[i], rv.Field(i), x); err != nil {
			return fmt.Errorf("%s: item %d: %w", c.name, i, err)
		}
	}
	if len(items) <= n {
		return nil
	}
	rest := rv.Field(c.rest)
	s := reflect.MakeSlice(rest.Type(), len(items)-n, len(items)-n)
	for i, raw := range items[n:] {
		if err := t.decode(raw, s.Index(i), x); err != nil {
			return fmt.Errorf("%s: item %d: %w", c.name, n+i, err)
		}
	}
	rest.Set(s)
	return nil
}

// encode writes the JSON of rv to b.
func (t *Types) encode(b *bytes.Buffer, rv reflect.Value) error {
	if !rv.IsValid() {
		b.WriteString("null")
		return nil
	}
	c := t.codecFor(rv.Type())
	switch c.kind {
	case codecPointer:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return t.encode(b, rv.Elem())
	case codecSlice:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i := range rv.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := t.encode(b, rv.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case codecMap:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('{')
		if err := t.encodeMembers(b, rv, nil, false); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	case codecNullable:
		if !rv.FieldByName("Set").Bool() || rv.FieldByName("Null").Bool() {
			b.WriteString("null")
			return nil
		}
		return t.encode(b, rv.FieldByName("Value"))
	case codecObject:
		return c.encodeObject(t, b, rv)
	case codecUnion:
		return c.encodeUnion(t, b, rv)
	case codecTuple:
		return c.encodeTuple(t, b, rv)
	case codecRaw:
		if rv.Len() == 0 {
			b.WriteString("null")
			return nil
		}
		b.Write(rv.Bytes())
		return nil
	}
	out, err := json.Marshal(rv.Interface())
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// encodeMembers writes the members of the map rv sorted by key, after a
// comma when comma is set. A key that is in known is an error.
func (t *Types) encodeMembers(b *bytes.Buffer, rv reflect.Value, known map[string]bool, comma bool) error {
	keys := make([]string, 0, rv.Len())
	for _, k := range rv.MapKeys() {
		keys = append(keys, k.String())
	}
	slices.Sort(keys)
	for i, k := range keys {
		if known[k] {
			return fmt.Errorf("extra property %q has a field of its own", k)
		}
		if i > 0 || comma {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := t.encode(b, rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()))); err != nil {
			return fmt.Errorf("property %q: %w", k, err)
		}
	}
	return nil
}

func (c *codec) encodeObject(t *Types, b *bytes.Buffer, rv reflect.Value) error {
	b.WriteByte('{')
	first := true
	for _, f := range c.fields {
		fv := rv.Field(f.index)
		if f.omitZero && isZero(fv) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(f.key)
		b.WriteByte(':')
		if err := t.encode(b, fv); err != nil {
			return fmt.Errorf("%s: property %q: %w", c.name, f.name, err)
		}
	}
	if c.extra >= 0 && rv.Field(c.extra).Len() > 0 {
		if err := t.encodeMembers(b, rv.Field(c.extra), c.known, !first); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	b.WriteByte('}')
	return nil
}

func (c *codec) encodeUnion(t *Types, b *bytes.Buffer, rv reflect.Value) error {
	for i := range rv.NumField() {
		fv := rv.Field(i)
		if isNil(fv) {
			continue
		}
		if c.info.Union != UnionByTag {
			return t.encode(b, fv)
		}
		var body bytes.Buffer
		if err := t.encode(&body, fv); err != nil {
			return err
		}
		out, err := withTag(c.info.UnionTag, c.info.Cases[i], body.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		b.Write(out)
		return nil
	}
	return errors.New(c.name + ": no variant is set")
}

func (c *codec) encodeTuple(t *Types, b *bytes.Buffer, rv reflect.Value) error {
	b.WriteByte('[')
	n := 0
	for i := range c.info.Tuple {
		fv := rv.Field(i)
		if i >= c.info.MinItems && isNil(fv) {
			break
		}
		if n > 0 {
			b.WriteByte(',')
		}
		if err := t.encode(b, fv); err != nil {
			return fmt.Errorf("%s: item %d: %w", c.name, i, err)
		}
		n++
	}
	if c.rest >= 0 {
		rest := rv.Field(c.rest)
		if rest.Len() > 0 && n < c.info.Tuple {
			return fmt.Errorf("%s: a tuple with an absent position %d cannot have more items", c.name, n)
		}
		for i := range rest.Len() {
			if n > 0 {
				b.WriteByte(',')
			}
			if err := t.encode(b, rest.Index(i)); err != nil {
				return fmt.Errorf("%s: item %d: %w", c.name, n, err)
			}
			n++
		}
	}
	b.WriteByte(']')
	return nil
}

// isZero is what encoding/json's omitzero tests: an IsZero method, or the
// Go zero value.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}

// isNull reports whether data is the JSON null literal.
func isNull(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "null"
}

// isNil reports whether v is a nil pointer, slice, map or interface.
func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	return false
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// fastKind is codecString or codecBool for a string or bool kind that
// decodes as encoding/json would without it (no UnmarshalJSON), else
// codecPlain.
func fastKind(rt reflect.Type) codecKind {
	if reflect.PointerTo(rt).Implements(jsonUnmarshaler) || rt.Implements(jsonUnmarshaler) {
		return codecPlain
	}
	switch rt.Kind() {
	case reflect.String:
		return codecString
	case reflect.Bool:
		return codecBool
	}
	return codecPlain
}
