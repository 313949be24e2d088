package composition

import "github.com/mcpbind/mcpbind/internal/mcpconn"

// OAuthLogin configures [WithOAuthLogin]: the authorization-code flow with
// PKCE of the MCP authorization specification (2025-11-25, with the
// 2025-03-26 fallbacks), for a user at a browser.
//
// Its fields:
//
//	type OAuthLogin struct {
//		// ClientID and ClientSecret are a pre-registered client's; empty: the
//		// client is registered (CIMD or dynamic registration).
//		ClientID, ClientSecret string
//		// ClientMetadataURL is the https URL of this client's metadata document
//		// (CIMD), used as the client ID when the authorization server advertises
//		// client_id_metadata_document_supported.
//		ClientMetadataURL string
//		// ClientName is the client_name sent with dynamic registration.
//		ClientName string
//		// Scopes, when set, are asked for instead of the server's.
//		Scopes []string
//		// Store keeps the logins; nil: nothing is kept past the connection.
//		Store *tokenstore.Store
//		// Fresh ignores the stored login: the first 401 runs the flow, whose
//		// login then replaces the stored one (mcpbind login).
//		Fresh bool
//		// Authorize shows the user the authorization URL (opens a browser, or
//		// prints it). Nil: a connection that needs a login fails with a
//		// *LoginRequiredError.
//		Authorize func(ctx context.Context, authURL string) error
//	}
//
// The Store type is internal to mcpbind: programs outside this module leave
// it nil (tokens live as long as the connection) until a public store is
// offered.
type OAuthLogin = mcpconn.OAuthLogin

// LoginRequiredError is in the error chain of [Connect] or of a call when an
// HTTP server asked for authorization (HTTP 401, or 403 insufficient_scope)
// and no login could be used: none is stored, or the stored one was refused
// and could not be refreshed, and [OAuthLogin].Authorize is nil.
//
// Its fields:
//
//	type LoginRequiredError struct {
//		// Server is the MCP server's URL, without user information, query and
//		// fragment.
//		Server string
//		// Reason says why: no stored login, or the stored one was refused and
//		// could not be refreshed.
//		Reason string
//		// ClientID is the pre-registered client the login is kept for; "" for
//		// a client mcpbind registers.
//		ClientID string
//	}
type LoginRequiredError = mcpconn.LoginRequiredError

// WithOAuthLogin authorizes requests to an HTTP server with the tokens of
// an OAuth login (MCP authorization, 2025-11-25): the stored login's access
// token is sent, refreshed a minute before it expires and once after an
// HTTP 401; otherwise a 401, or a 403 with error="insufficient_scope"
// (step-up: the union of the scopes held and those the challenge names),
// runs the authorization-code flow with PKCE through l.Authorize: discovery
// (RFC 9728 protected resource metadata, RFC 8414 / OpenID Connect
// authorization server metadata), client registration (pre-registered
// client, client ID metadata document, or RFC 7591), the browser's redirect
// to a loopback listener on 127.0.0.1 (state checked), the RFC 8707
// resource sent with every authorization and token request. At most three
// flows run per connection, and a scope set refused once is not asked for
// again. Tokens go only to the server's origin (redirects elsewhere are
// refused) and never appear in errors, warnings or logs. It cannot be
// combined with [WithBearerToken] or [WithOAuthClientCredentials].
func WithOAuthLogin(l OAuthLogin) Option {
	return connOption(mcpconn.WithOAuthLogin(l))
}
