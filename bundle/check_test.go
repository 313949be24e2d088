package bundle

import (
	"strings"
	"testing"
)

// TestDuplicateKeyFoundPastColonsInStrings: the fast duplicate-key check
// counts colons outside strings; colons and escaped quotes inside keys and
// values must not hide a duplicate or invent one.
func TestDuplicateKeyFoundPastColonsInStrings(t *testing.T) {
	clean := `{"a:b":"x\":y\\","c":[{"d":"::"}],"e":{"f\"":1}}`
	if _, err := parseInstance([]byte(clean), "f.json"); err != nil {
		t.Fatalf("clean: %v", err)
	}
	dup := `{"a:b":"x\":y\\","c":[{"d":"::","d":2}]}`
	_, err := parseInstance([]byte(dup), "f.json")
	if err == nil || !strings.Contains(err.Error(), `/c/0: duplicate key "d"`) {
		t.Fatalf("dup: err = %v", err)
	}
}
