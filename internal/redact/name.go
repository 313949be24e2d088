package redact

import "strings"

// SecretName reports whether a value named name (a JSON member, a header,
// a variable) is a secret by its name alone: name folded to lower case,
// without "-", "_", "." and spaces, contains password, passwd, passphrase,
// secret, token, authorization, apikey, accesskey, privatekey, credential,
// cookie, bearer or signature ("api_key", "X-Auth-Token", "clientSecret").
// It is for values mcpbind was not told are secrets, such as a tool's
// arguments that telemetry records (composition/otelmcp): their values
// become Mask.
func SecretName(name string) bool {
	folded := strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		return r
	}, strings.ToLower(name))
	for _, p := range [...]string{
		"password", "passwd", "passphrase", "secret", "token", "authorization",
		"apikey", "accesskey", "privatekey", "credential", "cookie", "bearer", "signature",
	} {
		if strings.Contains(folded, p) {
			return true
		}
	}
	return false
}
