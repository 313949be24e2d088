package redact

import "testing"

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "api_key": true, "X-Auth-Token": true, "clientSecret": true,
		"Authorization": true, "private.key": true, "session cookie": true,
		"table": false, "limit": false, "author": false, "keys": false, "": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
