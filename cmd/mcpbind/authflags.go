package main

import (
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/loopback"
)

// authOptions are the OAuth flags of the commands that reach an HTTP server:
// the client-credentials grant (RFC 6749 §4.4), through
// composition.WithOAuthClientCredentials.
type authOptions struct {
	clientID        string
	clientSecretEnv string
	privateKeyEnv   string
	tokenURL        string
	scopes          []string
	// The authorization-code flow (login.go).
	login             bool
	noBrowser         bool
	clientMetadataURL string
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
	fs.StringVar(&o.privateKeyEnv, "oauth-private-key-env", "",
		"authenticate the client-credentials grant with private_key_jwt, the PEM private key read from environment variable `VAR` (instead of --oauth-client-secret-env)")
	fs.BoolVar(&o.login, "login", false,
		"use the OAuth authorization-code flow (a browser login) on HTTP 401, even when stdin is not a terminal; with --oauth-client-id and --oauth-client-secret-env, a pre-registered confidential client")
	fs.BoolVar(&o.noBrowser, "no-browser", false,
		"print the login URL instead of opening a browser")
	fs.StringVar(&o.clientMetadataURL, "oauth-client-metadata-url", "",
		"the https `URL` of this client's OAuth client ID metadata document, used as its client ID when the authorization server supports them (CIMD)")
}

// given reports whether any OAuth flag was given.
func (o *authOptions) given() bool {
	return o.clientID != "" || o.clientSecretEnv != "" || o.privateKeyEnv != "" || o.tokenURL != "" || len(o.scopes) > 0 ||
		o.login || o.noBrowser || o.clientMetadataURL != ""
}

// clientCredentialsGrant reports whether the flags ask for the
// client-credentials grant: a secret or a private key without --login.
func (o *authOptions) clientCredentialsGrant() bool {
	return !o.login && (o.clientSecretEnv != "" || o.privateKeyEnv != "" || o.tokenURL != "")
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
	var out []string
	for _, name := range []string{o.clientSecretEnv, o.privateKeyEnv} {
		if name == "" {
			continue
		}
		if v, ok := lookupEnv(name); ok && strings.TrimSpace(v) != "" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// clientCredentials is the configuration the flags describe; nil when no
// OAuth flag was given.
func (o *authOptions) clientCredentials(lookupEnv func(string) (string, bool)) (*composition.OAuthClientCredentials, error) {
	if !o.given() || !o.clientCredentialsGrant() {
		return nil, nil
	}
	if o.clientID == "" {
		return nil, usageErrorf("--oauth-client-secret-env, --oauth-private-key-env, --oauth-token-url and --oauth-scope need --oauth-client-id")
	}
	if o.clientSecretEnv == "" && o.privateKeyEnv == "" {
		return nil, usageErrorf("--oauth-client-id needs --oauth-client-secret-env VAR or --oauth-private-key-env VAR: the client-credentials grant authenticates the client")
	}
	if o.clientSecretEnv != "" && o.privateKeyEnv != "" {
		return nil, usageErrorf("give --oauth-client-secret-env or --oauth-private-key-env, not both")
	}
	var secret, key string
	if o.clientSecretEnv != "" {
		var err error
		if secret, err = readSecretEnv(lookupEnv, "--oauth-client-secret-env", o.clientSecretEnv, false); err != nil {
			return nil, err
		}
	} else {
		var err error
		if key, err = readSecretEnv(lookupEnv, "--oauth-private-key-env", o.privateKeyEnv, true); err != nil {
			return nil, err
		}
	}
	if o.tokenURL != "" {
		u, err := url.Parse(o.tokenURL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			return nil, usageErrorf("--oauth-token-url: %q is not an http or https URL", o.tokenURL)
		case u.Scheme == "http" && !loopback.Host(u.Hostname()):
			return nil, usageErrorf("--oauth-token-url: %s must be an https URL: the client secret is sent to it (plain http is accepted only on loopback addresses)", o.tokenURL)
		}
	}
	scopes, err := o.scopeList()
	if err != nil {
		return nil, err
	}
	return &composition.OAuthClientCredentials{
		TokenURL:      o.tokenURL,
		ClientID:      o.clientID,
		ClientSecret:  secret,
		PrivateKeyPEM: key,
		Scopes:        scopes,
	}, nil
}

// scopeList is the --oauth-scope values split and deduplicated.
func (o *authOptions) scopeList() ([]string, error) {
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
	return scopes, nil
}

// readSecretEnv reads a secret from the environment variable the flag
// names; multiline allows line breaks (a PEM key). Errors never quote it.
func readSecretEnv(lookupEnv func(string) (string, bool), flag, name string, multiline bool) (string, error) {
	v, ok := lookupEnv(name)
	v = strings.TrimSpace(v)
	switch {
	case !ok:
		return "", usageErrorf("%s: environment variable %s is not set", flag, name)
	case v == "":
		return "", usageErrorf("%s: environment variable %s is empty", flag, name)
	case strings.ContainsRune(v, 0) || (!multiline && strings.ContainsAny(v, "\r\n")):
		return "", usageErrorf("%s: environment variable %s holds a line break or NUL", flag, name)
	}
	return v, nil
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
