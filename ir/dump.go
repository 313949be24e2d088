package ir

import (
	"encoding/json"
)

// Dump renders the IR of p as indented JSON, for debugging and for other
// back ends (mcpbind generate --dump-ir). Named types are listed once under
// "types" and referred to by name elsewhere, so recursive types print
// finitely. The shape is stable within a bundleVersion but not a public
// contract yet.
func (p *Package) Dump() ([]byte, error) {
	type field struct {
		Name     string `json:"name"`
		JSON     string `json:"json"`
		Type     string `json:"type"`
		Required bool   `json:"required,omitempty"`
		Nullable bool   `json:"nullable,omitempty"`
	}
	type variant struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		TagValue string `json:"tagValue,omitempty"`
		JSONKind string `json:"jsonKind,omitempty"`
	}
	type typ struct {
		Name       string    `json:"name"`
		Kind       string    `json:"kind"`
		Schema     string    `json:"schema"`
		Underlying string    `json:"underlying,omitempty"`
		Fields     []field   `json:"fields,omitempty"`
		Required   []string  `json:"required,omitempty"`
		Closed     bool      `json:"closed,omitempty"`
		Extra      string    `json:"extra,omitempty"`
		Enum       []string  `json:"enum,omitempty"`
		UnionBy    string    `json:"unionBy,omitempty"`
		Tag        string    `json:"tag,omitempty"`
		Variants   []variant `json:"variants,omitempty"`
		RawReason  string    `json:"rawReason,omitempty"`
	}
	type tool struct {
		Name      string `json:"name"`
		Method    string `json:"method"`
		Args      string `json:"args,omitempty"`
		Result    string `json:"result"`
		Wrapped   bool   `json:"wrapped,omitempty"`
		Output    Output `json:"output"`
		OutputDoc string `json:"outputSchema,omitempty"`
		Natural   string `json:"naturalPointer,omitempty"`
	}
	out := struct {
		Package         string `json:"package"`
		Server          string `json:"server"`
		ProtocolVersion string `json:"protocolVersion"`
		Tools           []tool `json:"tools"`
		Types           []typ  `json:"types"`
	}{Package: p.Name, Server: p.ServerID, ProtocolVersion: p.ProtocolVersion, Tools: []tool{}, Types: []typ{}}
	for _, t := range p.Tools {
		d := tool{Name: t.Name, Method: t.Method, Result: t.ResultGoType(), Wrapped: t.Wrapped, Output: t.Output, OutputDoc: t.OutputDoc, Natural: t.NaturalPointer}
		if t.Args != nil {
			d.Args = t.Args.GoType()
		}
		out.Tools = append(out.Tools, d)
	}
	for _, t := range p.Types {
		d := typ{Name: t.Name, Kind: t.Kind.String(), Schema: t.SchemaDoc + "#" + t.Pointer, Required: t.Required, Closed: t.Closed, RawReason: t.RawReason}
		switch t.Kind {
		case KindStruct, KindTuple:
			for _, f := range t.Fields {
				d.Fields = append(d.Fields, field{Name: f.Name, JSON: f.JSONName, Type: f.GoType(), Required: f.Required, Nullable: f.Nullable})
			}
			if t.Extra != nil {
				d.Extra = t.Extra.GoType()
			}
		case KindEnum:
			d.Underlying = t.Enum.BaseGoType()
			for _, v := range t.Enum.Values {
				d.Enum = append(d.Enum, v.Const+" = "+v.Literal)
			}
		case KindUnion:
			d.UnionBy = map[UnionBy]string{ByTag: "tag", ByJSONKind: "jsonKind", ByRequired: "requiredProperty"}[t.Union.By]
			d.Tag = t.Union.Tag
			for _, v := range t.Union.Variants {
				d.Variants = append(d.Variants, variant{Name: v.Name, Type: v.GoType(), TagValue: v.TagValue, JSONKind: v.JSONKind})
			}
		default:
			d.Underlying = t.Underlying()
		}
		out.Types = append(out.Types, d)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
