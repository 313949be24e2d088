package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestError masks a secret and URL credentials in an error's message and
// keeps the chain for errors.Is; an error with nothing to mask is returned
// as is, and nil stays nil.
func TestError(t *testing.T) {
	err := fmt.Errorf("open https://u:p@h/x?k=v with token s3cr3t-tok: %w", fs.ErrNotExist)
	got := Error(err, []string{"s3cr3t-tok"})
	if want := "open https://***@h/x?*** with token ***: file does not exist"; got.Error() != want {
		t.Errorf("Error() = %q, want %q", got.Error(), want)
	}
	if !errors.Is(got, fs.ErrNotExist) {
		t.Error("the redacted error does not unwrap to the original")
	}
	plain := errors.New("nothing to hide")
	if Error(plain, []string{"s3cr3t-tok"}) != plain {
		t.Error("an error with nothing to mask was wrapped")
	}
	if Error(nil, nil) != nil {
		t.Error("nil became an error")
	}
}
