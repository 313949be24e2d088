package main

import (
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpbind/mcpbind/composition"
)

// authOptions are the OAuth flags of the commands that reach an HTTP server:
// the client-credentials grant (RFC 6749 §4.4), through
// composition.WithOAuthClientCredentials.
type authOptions struct {
	clientID        string
	clientSecretEnv string
	tokenURL        string
	scopes          []string
}

// addAuthFlags defines the OAuth flags on fs, storing into o:
//
//	--oauth-client-id ID          the client's ID
//	--oauth-client-secret-env VAR the environment variable holding its secret
//	--oauth-token-url URL         the token endpoint (default: discovered from
//	                              the server's protected resource metadata)
//	--oauth-scope S               a scope to ask for (repeatable)
func addAuthFlags(fs *pflag.FlagSet, o *authOptions) {
	fs.StringVar(&o.clientID, "oauth-client-id", "",
		"get an access token for an HTTP server with the OAuth client-credentials grant, as client `ID`")
	fs.StringVar(&o.clientSecretEnv, "oauth-client-secret-env", "",
		"read the OAuth client secret from environment variable `VAR` (required with --oauth-client-id)")
	fs.StringVar(&o.tokenURL, "oauth-token-url", "",
		"the authorization server's token endpoint `URL` (https, or http on a loopback address; default: found through the server's protected resource metadata, RFC 9728)")
	fs.StringArrayVar(&o.scopes, "oauth-scope", nil,
		"OAuth `SCOPE` to ask for (repeatable; a space-separated list is split)")
}

// given reports whether any OAuth flag was given.
func (o *authOptions) given() bool {
	return o.clientID != "" || o.clientSecretEnv != "" || o.tokenURL != "" || len(o.scopes) > 0
}

// compositionOptions maps the flags to composition options: none when no
// OAuth flag was given, else composition.WithOAuthClientCredentials. The
// secret is read with lookupEnv (os.LookupEnv in main). Errors are usage
// errors (exit 2) naming the flag; none quotes the secret.
func (o *authOptions) compositionOptions(lookupEnv func(string) (string, bool)) ([]composition.Option, error) {
	cc, err := o.clientCredentials(lookupEnv)
	if err != nil || cc == nil {
		return nil, err
	}
	return []composition.Option{composition.WithOAuthClientCredentials(*cc)}, nil
}

// secretValues returns the client secret the flags name, if it is set, for
// the redaction of messages that a server might echo it in.
func (o *authOptions) secretValues(lookupEnv func(string) (string, bool)) []string {
	if o.clientSecretEnv == "" {
		return nil
	}
	if v, ok := lookupEnv(o.clientSecretEnv); ok && strings.TrimSpace(v) != "" {
		return []string{strings.TrimSpace(v)}
	}
	return nil
}

// clientCredentials is the configuration the flags describe; nil when no
// OAuth flag was given.
func (o *authOptions) clientCredentials(lookupEnv func(string) (string, bool)) (*composition.OAuthClientCredentials, error) {
	if !o.given() {
		return nil, nil
	}
	if o.clientID == "" {
		return nil, usageErrorf("--oauth-client-secret-env, --oauth-token-url and --oauth-scope need --oauth-client-id")
	}
	if o.clientSecretEnv == "" {
		return nil, usageErrorf("--oauth-client-id needs --oauth-client-secret-env VAR: the client-credentials grant authenticates the client with its secret")
	}
	secret, ok := lookupEnv(o.clientSecretEnv)
	secret = strings.TrimSpace(secret)
	switch {
	case !ok:
		return nil, usageErrorf("--oauth-client-secret-env: environment variable %s is not set", o.clientSecretEnv)
	case secret == "":
		return nil, usageErrorf("--oauth-client-secret-env: environment variable %s is empty", o.clientSecretEnv)
	case strings.ContainsAny(secret, "\r\n\x00"):
		return nil, usageErrorf("--oauth-client-secret-env: environment variable %s holds a line break or NUL", o.clientSecretEnv)
	}
	if o.tokenURL != "" {
		u, err := url.Parse(o.tokenURL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			return nil, usageErrorf("--oauth-token-url: %q is not an http or https URL", o.tokenURL)
		case u.Scheme == "http" && !isLoopbackHostname(u.Hostname()):
			return nil, usageErrorf("--oauth-token-url: %s must be an https URL: the client secret is sent to it (plain http is accepted only on loopback addresses)", o.tokenURL)
		}
	}
	var scopes []string
	for i, s := range o.scopes {
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return nil, usageErrorf("--oauth-scope #%d is empty", i+1)
		}
		for _, f := range fields {
			if !validScopeToken(f) {
				return nil, usageErrorf("--oauth-scope #%d: %q is not a scope token (RFC 6749 §3.3: printable ASCII without '\"' and '\\\\')", i+1, f)
			}
			if !slices.Contains(scopes, f) {
				scopes = append(scopes, f)
			}
		}
	}
	return &composition.OAuthClientCredentials{
		TokenURL:     o.tokenURL,
		ClientID:     o.clientID,
		ClientSecret: secret,
		Scopes:       scopes,
	}, nil
}

// validScopeToken reports whether s is an RFC 6749 §3.3 scope-token:
// %x21 / %x23-5B / %x5D-7E.
func validScopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// isLoopbackHostname reports whether host is localhost or a loopback
// address.
func isLoopbackHostname(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
