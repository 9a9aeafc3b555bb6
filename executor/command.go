package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pattern-dialect/dialect/codes"
)

// commandSpec is how a target, tool or provider runs a program: an argv
// array started directly (never through a shell), with a small
// environment, a time limit and bounded output.
type commandSpec struct {
	argv      []string
	env       []string // names of variables passed through besides the base set
	timeout   time.Duration
	maxOutput int
}

// baseEnv are the variables every command receives from the runtime's
// environment (when set); anything else must be listed in `env`.
var baseEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"}

// CommandError is the cause of a COMMAND_FAILED failure: how the command
// ended and the end of what it wrote to stderr, where programs say why.
// The runtime gives it to the person and the model with the failure.
type CommandError struct {
	Argv0    string `json:"program"`
	ExitCode int    `json:"exit_code"`        // -1 when it did not start or was killed
	Stderr   string `json:"stderr,omitempty"` // the end of its standard error, cleaned, on one line
}

// Error says how the command ended, with the start of its stderr.
func (e *CommandError) Error() string {
	msg := fmt.Sprintf("%s exited with status %d", e.Argv0, e.ExitCode)
	if e.ExitCode < 0 {
		msg = e.Argv0 + " did not finish"
	}
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// expandArgv fills the {name} placeholders of a command template with
// vars, in one pass over each element of the template: a substituted
// value is never read again as a template, so "{target}" inside a message
// reaches the program as those eight characters. A value stays one
// argument whatever it contains (there is no shell to split it); NUL
// bytes, which no argument can carry, are dropped. A placeholder vars
// does not fill is MISSING_ARG and nothing runs. With refuseDash, a value
// that starts with '-' is refused (MALFORMED_SYNTAX) so that it cannot be
// read as an option; without it, it reaches the program as written, and
// a template can put "--" before its placeholders for programs that end
// their options there.
func expandArgv(argv []string, vars map[string]string, refuseDash bool) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		var b strings.Builder
		for {
			open := strings.IndexByte(a, '{')
			if open < 0 {
				b.WriteString(a)
				break
			}
			end := strings.IndexByte(a[open:], '}')
			name := ""
			if end > 0 {
				name = a[open+1 : open+end]
			}
			if !placeholderName(name) {
				b.WriteString(a[:open+1]) // a brace that is not a placeholder is text
				a = a[open+1:]
				continue
			}
			v, ok := vars[name]
			if !ok {
				return nil, codes.Errorf(codes.MissingArg, "the command needs {%s}, and the action gives no %s", name, name)
			}
			v = strings.ReplaceAll(v, "\x00", "")
			if refuseDash && strings.HasPrefix(v, "-") {
				return nil, codes.Errorf(codes.MalformedSyntax, "{%s} starts with '-' (%.20q), which this command does not accept: it could be read as an option", name, v)
			}
			b.WriteString(a[:open])
			b.WriteString(v)
			a = a[open+end+1:]
		}
		out[i] = b.String()
	}
	return out, nil
}

// placeholderName reports whether s is a placeholder's name: a letter or
// '_', then letters, digits or '_'.
func placeholderName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// run starts the command with stdin and returns its standard output,
// bounded to maxOutput bytes.
func (c commandSpec) run(ctx context.Context, argv []string, stdin []byte) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", codes.Wrap(codes.NotConfigured, nil, "no command is configured")
	}
	if err := ctx.Err(); err != nil {
		return "", ctxError(err, argv[0])
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = ChildEnv(c.env)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &limitedBuffer{max: c.maxOutput}
	stderr := &limitedBuffer{max: 2048}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if ctx.Err() != nil {
		return "", ctxError(ctx.Err(), "the command "+argv[0])
	}
	ce := &CommandError{Argv0: argv[0], ExitCode: -1, Stderr: stderrTail(stderr.String(), 300)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ce.ExitCode = ee.ExitCode()
		return "", &codes.Error{Code: codes.CommandFailed, Msg: "the command failed", Err: ce}
	}
	return "", &codes.Error{Code: codes.CommandFailed, Msg: "the command could not run", Err: fmt.Errorf("%s: %w", argv[0], err)}
}

// stderrTail is the end of a command's standard error, where programs
// write why they stopped: cleaned, its lines joined with " | ", at most max
// bytes (a cut is marked "…" at the front).
func stderrTail(s string, max int) string {
	var lines []string
	for _, l := range strings.Split(Clean(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := strings.Join(lines, " | ")
	if len(out) <= max {
		return out
	}
	cut := len(out) - max
	for cut < len(out) && !utf8.RuneStart(out[cut]) {
		cut++
	}
	return "…" + out[cut:]
}

// ChildEnv is the environment a child process the runtime starts (a
// command target, an MCP server over stdio) receives: the variables of
// baseEnv and then of extra, each once, those set in the runtime's own
// environment only.
func ChildEnv(extra []string) []string {
	env := []string{}
	seen := map[string]bool{}
	for _, names := range [][]string{baseEnv, extra} {
		for _, k := range names {
			if seen[k] {
				continue
			}
			seen[k] = true
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
	}
	return env
}
