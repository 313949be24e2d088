package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Exit codes, as the README's "Exit codes" section lists them.
const (
	// exitOK: success.
	exitOK = 0
	// exitBreaking: a breaking contract change was found (diff, check).
	exitBreaking = 1
	// exitInput: a usage or input error (flags, arguments, an unreadable or
	// invalid bundle, an output path that cannot be written).
	exitInput = 2
	// exitServer: the server could not be started or reached, failed, or
	// answered something unusable.
	exitServer = 3
)

// cli is what every command reads from its surroundings, so that tests can
// run the commands in-process. Commands write results to stdout and
// progress, warnings and errors to stderr.
type cli struct {
	stdout, stderr io.Writer
	// lookupEnv reads the environment (os.LookupEnv in main).
	lookupEnv func(string) (string, bool)
	// templates replaces the generator's embedded templates when not nil
	// (nil in main; tests pass hostile ones, see gen.NewWithTemplates).
	templates fs.FS
}

// generator is the code generator of generate: the embedded templates, or
// c.templates.
func (c *cli) generator() (*gen.Generator, error) {
	if c.templates != nil {
		return gen.NewWithTemplates(c.templates)
	}
	return gen.New()
}

// exitError gives an error its process exit code.
type exitError struct {
	code int
	err  error
}

// Error returns the wrapped error's message.
func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *exitError) Unwrap() error { return e.err }

// withExit wraps err so that the process exits with code; nil stays nil.
func withExit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErrorf is a usage error (exit 2) whose message is printed with a
// pointer to --help.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitInput, err: &usageError{msg: fmt.Sprintf(format, args...)}}
}

// usageError marks a mistake in the command line.
type usageError struct{ msg string }

// Error returns the message.
func (e *usageError) Error() string { return e.msg }

// exitCode maps an error to the process exit code: an *exitError's own
// code; a bundle problem is an input error; a composition connect error is a
// server error unless it is about the given configuration; anything else
// (cobra's flag and argument errors among them) is a usage error.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var be *bundle.Error
	if errors.As(err, &be) {
		return exitInput
	}
	var ce *composition.ConnectError
	if errors.As(err, &ce) {
		if ce.Stage == "config" {
			return exitInput
		}
		return exitServer
	}
	return exitInput
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, c *cli) int {
	root := newRootCmd(c)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	// Every message loses URL user information and query values here, the
	// one place all errors are printed (commands redact given secrets).
	fmt.Fprintf(c.stderr, "mcpbind: %s\n", redact.URLs(err.Error()))
	if tail := composition.StderrTail(err); tail != "" {
		// The server's own words, for the user at this terminal only: the
		// error message leaves them out. Already redacted of given secrets.
		fmt.Fprintf(c.stderr, "server stderr (last lines):\n  %s\n",
			strings.ReplaceAll(textsafe.Render(strings.TrimRight(redact.URLs(tail), "\n"), textsafe.Lines), "\n", "\n  "))
	}
	if isUsage(err) {
		fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return exitCode(err)
}

// isUsage reports whether err is a mistake in the command line (ours, or
// cobra's own, such as an unknown command), after which a pointer to --help
// helps.
func isUsage(err error) bool {
	var ue *usageError
	if errors.As(err, &ue) {
		return true
	}
	var ee *exitError
	var be *bundle.Error
	var ce *composition.ConnectError
	return !errors.As(err, &ee) && !errors.As(err, &be) && !errors.As(err, &ce)
}

// newRootCmd builds the command tree. Each call builds new commands: no
// command or flag lives in a package variable.
func newRootCmd(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpbind",
		Short: "Typed Go clients for MCP servers",
		Long: `mcpbind exports live MCP servers' tool schemas into a versioned, deterministic
bundle (JSON) and generates typed Go clients from it.

Exit codes: 0 ok, 1 breaking change found, 2 usage or input error,
3 server or transport error.`,
		Example: `  mcpbind export -o tools.json -- npx -y @modelcontextprotocol/server-everything
  mcpbind generate tools.json -o internal/mcp
  mcpbind show tools.json`,
		Version:       thisBuild().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// One meaning for -v everywhere: --verbose (a subcommand's own -v, or
	// this one, which a command that has nothing to report ignores), so that
	// "mcpbind -v diff a b" works; --version has no short form.
	root.PersistentFlags().BoolP("verbose", "v", false, "report progress and a stdio server's stderr (commands that reach a server)")
	root.Flags().Bool("version", false, "print mcpbind's module version and VCS revision")
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErrorf("%v", err)
	})
	root.AddCommand(newExportCmd(c), newGenerateCmd(c))
	root.AddCommand(newDiffCmd(c))
	root.AddCommand(newCheckCmd(c))
	root.AddCommand(newCallCmd(c))
	root.AddCommand(newValidateCmd(c))
	root.AddCommand(newShowCmd(c))
	root.AddCommand(newLoginCmd(c), newLogoutCmd(c))
	addCompletionCmd(root)
	return root
}
