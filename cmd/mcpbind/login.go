package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"

	"github.com/cli/browser"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// `mcpbind login URL` and `mcpbind logout URL`, and the OAuth login that
// export, check and call use against an HTTP server when no other
// credential is given (composition.WithOAuthLogin): the stored login's
// token is sent; the server's first 401 runs the authorization-code flow
// when stdin and stderr are a terminal or --login is given, and otherwise
// fails with a *composition.LoginRequiredError, which the commands explain
// with the `mcpbind login URL` to run.

// loginOption is the composition option of an HTTP target that has no
// other credential: composition.WithOAuthLogin configured by the flags.
// secrets are the client secret given, for redaction.
func (c *cli) loginOption(o *authOptions, fresh bool) (opt composition.Option, secrets []string, err error) {
	l := composition.OAuthLogin{ClientID: o.clientID, ClientMetadataURL: o.clientMetadataURL, Fresh: fresh}
	if l.Scopes, err = o.scopeList(); err != nil {
		return composition.Option{}, nil, err
	}
	if o.clientMetadataURL != "" {
		if u, perr := url.Parse(o.clientMetadataURL); perr != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return composition.Option{}, nil, usageErrorf("--oauth-client-metadata-url: %q is not an https URL with a path", o.clientMetadataURL)
		}
	}
	if o.clientSecretEnv != "" {
		if o.clientID == "" {
			return composition.Option{}, nil, usageErrorf("--oauth-client-secret-env needs --oauth-client-id")
		}
		if l.ClientSecret, err = readSecretEnv(c.lookupEnv, "--oauth-client-secret-env", o.clientSecretEnv, false); err != nil {
			return composition.Option{}, nil, err
		}
		secrets = append(secrets, l.ClientSecret)
	}
	if store, serr := tokenstore.Open(); serr == nil {
		l.Store = store
	}
	if fresh || o.login || (isatty.IsTerminal(os.Stdin.Fd()) && isatty.IsTerminal(os.Stderr.Fd())) {
		l.Authorize = c.authorizer(o.noBrowser)
	}
	return composition.WithOAuthLogin(l), secrets, nil
}

// authorizer shows the authorization URL: it prints it on stderr and, unless
// noBrowser, opens it with $BROWSER when set (its words, then the URL) or
// the system's browser (github.com/cli/browser).
func (c *cli) authorizer(noBrowser bool) func(ctx context.Context, authURL string) error {
	return func(ctx context.Context, authURL string) error {
		if noBrowser {
			fmt.Fprintf(c.stderr, "mcpbind: to log in, open this URL in a browser on this machine:\n\n  %s\n\n", authURL)
			return nil
		}
		fmt.Fprintf(c.stderr, "mcpbind: opening a browser to log in; if none opens, visit:\n\n  %s\n\n", authURL)
		if b, ok := c.lookupEnv("BROWSER"); ok && strings.TrimSpace(b) != "" {
			words := strings.Fields(b)
			cmd := exec.CommandContext(ctx, words[0], append(words[1:], authURL)...)
			cmd.Stdout, cmd.Stderr = c.stderr, c.stderr
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("starting $BROWSER (%s): %w", words[0], err)
			}
			go func() { _ = cmd.Wait() }()
			return nil
		}
		browser.Stdout, browser.Stderr = c.stderr, c.stderr // never onto stdout, which carries results
		return browser.OpenURL(authURL)
	}
}

// explainLogin adds the command to run to a LoginRequiredError.
func explainLogin(err error) error {
	var le *composition.LoginRequiredError
	if errors.As(err, &le) {
		return fmt.Errorf("%w: run `%s` where a browser can be opened, or give --login to run the flow here", err, le.Command())
	}
	return err
}

func newLoginCmd(c *cli) *cobra.Command {
	var f serverFlags
	cmd := &cobra.Command{
		Use:   "login [flags] URL",
		Short: "Log in to an HTTP MCP server with OAuth (browser) and keep its tokens",
		Long: `Login runs the MCP authorization flow (OAuth 2.1 authorization code with PKCE)
against the HTTP MCP server at URL: it discovers the authorization server
(RFC 9728, RFC 8414 / OpenID Connect), registers mcpbind as a client (a
pre-registered --oauth-client-id, a client ID metadata document, or dynamic
registration), opens a browser on the authorization page ($BROWSER when set;
--no-browser prints the URL) and receives the answer on a loopback address.
The tokens are kept per server URL and client in the OS keyring, or, without
one, in a file only you can read under your configuration directory; export,
check and call use and refresh them. Nothing is printed but the URL.`,
		Example: `  mcpbind login https://mcp.example.com/mcp
  mcpbind login --no-browser --oauth-scope read https://mcp.example.com/mcp`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runLogin(cmd.Context(), &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&f.timeout, "timeout", 0, "give up after this `DURATION` (0: never; the browser login may take a while)")
	fl.StringVar(&f.auth.clientID, "oauth-client-id", "", "a pre-registered OAuth client `ID` (default: register one)")
	fl.StringVar(&f.auth.clientSecretEnv, "oauth-client-secret-env", "", "read the pre-registered client's secret from environment variable `VAR`")
	fl.StringArrayVar(&f.auth.scopes, "oauth-scope", nil, "OAuth `SCOPE` to ask for (repeatable; default: what the server asks for)")
	fl.BoolVar(&f.auth.noBrowser, "no-browser", false, "print the login URL instead of opening a browser")
	fl.StringVar(&f.auth.clientMetadataURL, "oauth-client-metadata-url", "", "the https `URL` of this client's OAuth client ID metadata document (CIMD)")
	return cmd
}

// runLogin connects with a fresh login and lists the tools, so that the
// server asks for authorization where it does.
func (c *cli) runLogin(ctx context.Context, f *serverFlags, raw string) error {
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("%q is not an http or https URL", raw)
	}
	opt, _, err := c.loginOption(&f.auth, true)
	if err != nil {
		return err
	}
	f.quiet = true
	k, err := c.connect(ctx, f, composition.HTTP(raw), []composition.Option{opt})
	if err != nil {
		return withExit(3, explainLogin(err))
	}
	defer k.cancel()
	defer k.sess.Close()
	if _, err := k.sess.ListToolsRaw(k.ctx); err != nil {
		return withExit(3, explainLogin(k.explain(err)))
	}
	store, err := tokenstore.Open()
	if err != nil {
		return withExit(3, err)
	}
	l, err := store.Load(tokenstore.ServerKey(raw), f.auth.clientID)
	if err != nil {
		return withExit(3, err)
	}
	if l == nil {
		fmt.Fprintf(c.stderr, "mcpbind: %s did not ask for authorization; no login was needed or kept\n", tokenstore.ServerKey(raw))
		return nil
	}
	fmt.Fprintf(c.stderr, "mcpbind: logged in to %s; the tokens are kept in %s\n", l.Server, store.Where())
	return nil
}

func newLogoutCmd(c *cli) *cobra.Command {
	var clientID string
	cmd := &cobra.Command{
		Use:   "logout [flags] URL",
		Short: "Forget the OAuth login of an HTTP MCP server",
		Long: `Logout deletes the tokens that mcpbind login (or a login run by export, check
or call) kept for the server at URL and the client: from the OS keyring and
from the file fallback. The authorization server is not told; revoke the
grant there if you no longer trust the machine.`,
		Example: `  mcpbind logout https://mcp.example.com/mcp
  mcpbind logout --oauth-client-id my-client https://mcp.example.com/mcp`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := tokenstore.Open()
			if err != nil {
				return withExit(3, err)
			}
			key := tokenstore.ServerKey(args[0])
			found, err := store.Delete(key, clientID)
			if err != nil {
				return withExit(3, err)
			}
			if !found {
				fmt.Fprintf(c.stderr, "mcpbind: no login kept for %s\n", key)
				return nil
			}
			fmt.Fprintf(c.stderr, "mcpbind: forgot the login of %s\n", key)
			return nil
		},
	}
	cmd.Flags().StringVar(&clientID, "oauth-client-id", "", "the pre-registered client `ID` the login was made with")
	return cmd
}
