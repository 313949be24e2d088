package otelmcp

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/redact"
)

// argumentsJSON is the recorded form of a call's arguments: Args as the
// caller gave them, encoded with encoding/json (a json.RawMessage as it
// is; nil as {}), then made safe (safeJSON).
func argumentsJSON(args any) (string, bool) {
	var raw []byte
	switch a := args.(type) {
	case nil:
		return "{}", true
	case json.RawMessage:
		raw = a
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return "", false
		}
		raw = b
	}
	return safeJSON(raw)
}

// resultJSON is the recorded form of a result: its structuredContent, else
// the JSON of its one text block, else its content blocks as an array.
func resultJSON(r *composition.Result) (string, bool) {
	if raw, ok := r.JSON(); ok {
		return safeJSON(raw)
	}
	blocks := make([]json.RawMessage, 0, len(r.Content))
	for _, c := range r.Content {
		if c.Raw != nil {
			blocks = append(blocks, c.Raw)
		}
	}
	b, err := json.Marshal(blocks)
	if err != nil {
		return "", false
	}
	return safeJSON(b)
}

// answerJSON is resultJSON for a served call's answer.
func answerJSON(a composition.Answer) (string, bool) {
	switch {
	case len(a.Structured) > 0 && string(a.Structured) != "null":
		return safeJSON(a.Structured)
	case a.Blocks == nil && json.Valid([]byte(a.Text)):
		return safeJSON([]byte(a.Text))
	case a.Blocks == nil:
		b, err := json.Marshal([]map[string]string{{"type": "text", "text": a.Text}})
		if err != nil {
			return "", false
		}
		return safeJSON(b)
	}
	b, err := json.Marshal(a.Blocks)
	if err != nil {
		return "", false
	}
	return safeJSON(b)
}

// safeJSON decodes raw, replaces the value of every member whose name
// looks like a secret with redact.Mask, encodes it again, masks URL
// credentials in the text and cuts it to MaxPayloadBytes. It fails when
// raw is not JSON.
func safeJSON(raw []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return "", false
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(maskSecrets(v)); err != nil {
		return "", false
	}
	return redact.Cut(strings.TrimSuffix(b.String(), "\n"), nil, MaxPayloadBytes), true
}

// maskSecrets returns v with the value of each member whose name is a
// secret's (redact.SecretName) replaced by redact.Mask, at any depth.
func maskSecrets(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			if redact.SecretName(k) {
				x[k] = redact.Mask
			} else {
				x[k] = maskSecrets(m)
			}
		}
	case []any:
		for i, m := range x {
			x[i] = maskSecrets(m)
		}
	}
	return v
}
