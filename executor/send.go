package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pattern-dialect/dialect/codes"
	"github.com/pattern-dialect/dialect/intent"
)

// TargetConfig is one delivery target ([exec.send.targets.NAME]).
type TargetConfig struct {
	// Type is "stdout", "file", "webhook" or "command".
	Type string `toml:"type"`
	// Path is the file a "file" target appends to (created 0600, with its
	// directories, if needed; a leading ~/ is the home directory).
	Path string `toml:"path"`
	// URL is where a "webhook" target POSTs the intent JSON.
	URL string `toml:"url"`
	// Headers are sent with a webhook; ${NAME} in a value is read from
	// the environment.
	Headers map[string]string `toml:"headers"`
	// Body is what a webhook POSTs: "intent" (the default: the intent
	// JSON), "slack" ({"text": content}) or "discord" ({"content":
	// content}), so that chat incoming-webhooks work without a relay.
	Body string `toml:"body"`
	// Command is the argv of a "command" target; it receives the intent
	// JSON on stdin. {domain}, {target}, {via} and {content} inside an
	// element are replaced in one pass, each staying one argument.
	Command []string `toml:"command"`
	// DashValues says what a substituted value that starts with '-' does:
	// "allow" (the default) passes it as written, "refuse" fails the
	// delivery so that no value can be read as an option.
	DashValues string `toml:"dash_values"`
	// Env names environment variables passed to the command besides PATH,
	// HOME, LANG, LC_ALL, TZ and TMPDIR.
	Env []string `toml:"env"`
	// Timeout bounds a webhook or command. Default 10s.
	Timeout Duration `toml:"timeout"`
	// MaxOutput bounds what is kept of a response or of the command's
	// output. Default 8 KiB.
	MaxOutput int `toml:"max_output"`
}

// SendOptions configure /send and its shorthands ([exec.send]).
type SendOptions struct {
	// Targets by name. A target named "stdout" of type stdout always
	// exists unless configured otherwise.
	Targets map[string]TargetConfig `toml:"targets"`
	// Routes map "domain:target", "domain" or "*" to a target name; the
	// most specific wins; case and a leading @ do not matter.
	// Default: { user = "stdout" }.
	Routes map[string]string `toml:"routes"`
}

// Sender delivers send intents. It is safe for concurrent use.
type Sender struct {
	targets map[string]TargetConfig
	routes  map[string]string
	out     io.Writer
	outMu   sync.Mutex
	fileMu  sync.Mutex
	client  *http.Client
}

// SendData is the Data of a send Result.
type SendData struct {
	Target   string `json:"target"` // the configured target's name
	Type     string `json:"type"`
	Domain   string `json:"domain"`
	To       string `json:"to,omitempty"`
	Status   int    `json:"status,omitempty"`   // webhook HTTP status
	Response string `json:"response,omitempty"` // webhook body or command output, bounded
	// Delivered is the line a stdout target wrote.
	Delivered string `json:"delivered,omitempty"`
}

// NewSender checks o and returns a Sender; stdout targets write to out.
func NewSender(o SendOptions, out io.Writer) (*Sender, error) {
	s := &Sender{targets: map[string]TargetConfig{"stdout": {Type: "stdout"}}, routes: map[string]string{}, out: out, client: newHTTPClient()}
	if o.Routes == nil {
		o.Routes = map[string]string{"user": "stdout"}
	}
	for k, v := range o.Routes {
		s.routes[strings.ToLower(strings.ReplaceAll(k, "@", ""))] = v // routes match case-insensitively
	}
	for name, t := range o.Targets {
		if err := checkTarget(name, t); err != nil {
			return nil, err
		}
		s.targets[name] = t
	}
	for from, to := range s.routes {
		if _, ok := s.targets[to]; !ok {
			return nil, configErr("send.routes", "%q names the target %q, which is not configured", from, to)
		}
	}
	return s, nil
}

func checkTarget(name string, t TargetConfig) error {
	switch t.Type {
	case "stdout":
	case "file":
		if t.Path == "" {
			return configErr("send.targets."+name+".path", "a file target needs a path")
		}
	case "webhook":
		if !strings.HasPrefix(t.URL, "http://") && !strings.HasPrefix(t.URL, "https://") {
			return configErr("send.targets."+name+".url", "a webhook needs an http(s) url")
		}
		switch t.Body {
		case "", "intent", "slack", "discord":
		default:
			return configErr("send.targets."+name+".body", "%q is not intent, slack or discord", t.Body)
		}
	case "command":
		if len(t.Command) == 0 || t.Command[0] == "" {
			return configErr("send.targets."+name+".command", "a command target needs a command")
		}
	default:
		return configErr("send.targets."+name+".type", "%q is not a target type (stdout, file, webhook, command)", t.Type)
	}
	return nil
}

// Route returns the name of the target in.Domain and in.Target go to.
func (s *Sender) Route(in intent.Send) (string, bool) {
	domain := strings.ToLower(strings.TrimPrefix(in.Domain, "@"))
	target := strings.ToLower(strings.TrimPrefix(in.Target, "@"))
	for _, key := range []string{domain + ":" + target, domain} {
		if name, ok := s.routes[key]; ok && !strings.HasSuffix(key, ":") {
			return name, true
		}
	}
	if _, ok := s.targets[domain]; ok && domain != "stdout" {
		return domain, true
	}
	name, ok := s.routes["*"]
	return name, ok
}

// Routes lists where the Sender delivers, as Route reads its
// configuration: the route keys ("domain:target", "domain", "*") and the
// domains a target is named after, sorted.
func (s *Sender) Routes() []string {
	seen := map[string]bool{}
	for k := range s.routes {
		if k != "" && !strings.HasSuffix(k, ":") {
			seen[k] = true
		}
	}
	for name := range s.targets {
		if name != "stdout" {
			seen[strings.ToLower(name)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Send delivers in to the target its route names.
func (s *Sender) Send(ctx context.Context, in intent.Send) (Result, error) {
	name, ok := s.Route(in)
	if !ok {
		return Result{}, codes.Wrap(codes.NotConfigured, nil, "nothing is configured to deliver to @%s (configured: %s)", in.Domain, strings.Join(s.routeKeys(), ", "))
	}
	return s.SendTo(ctx, name, in)
}

// SendTo delivers in to the configured target name, as the runtime's
// permission gate decided (it routes once, with Route, and the delivery
// goes where it decided).
func (s *Sender) SendTo(ctx context.Context, name string, in intent.Send) (Result, error) {
	if strings.TrimSpace(in.Content) == "" {
		return Result{}, codes.Wrap(codes.MissingArg, nil, "/%s needs a message", cmpOr(in.Via, "send"))
	}
	t, ok := s.targets[name]
	if !ok {
		return Result{}, codes.Wrap(codes.NotConfigured, nil, "nothing is configured to deliver to @%s (configured: %s)", in.Domain, strings.Join(s.routeKeys(), ", "))
	}
	payload, err := intent.Marshal(in)
	if err != nil {
		return Result{}, codes.Wrap(codes.MalformedSyntax, err, "the message could not be encoded")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, ctxError(err, "sending")
	}
	data := SendData{Target: name, Type: t.Type, Domain: in.Domain, To: in.Target}
	switch t.Type {
	case "stdout":
		data.Delivered, err = s.writeStdout(in)
	case "file":
		err = s.appendFile(t.Path, payload)
	case "webhook":
		spec := httpSpec{headers: t.Headers, timeout: t.Timeout.or(10 * time.Second), maxOutput: orInt(t.MaxOutput, 8<<10)}
		body := payload
		switch t.Body {
		case "slack":
			body, _ = json.Marshal(map[string]string{"text": in.Content})
		case "discord":
			body, _ = json.Marshal(map[string]string{"content": in.Content})
		}
		data.Response, data.Status, err = spec.do(ctx, s.client, t.URL, body)
	case "command":
		spec := commandSpec{env: t.Env, timeout: t.Timeout.or(10 * time.Second), maxOutput: orInt(t.MaxOutput, 8<<10)}
		var argv []string
		argv, err = expandArgv(t.Command, map[string]string{"domain": in.Domain, "target": in.Target, "via": in.Via, "content": in.Content}, t.DashValues == "refuse")
		if err == nil {
			data.Response, err = spec.run(ctx, argv, payload)
		}
	}
	if err != nil {
		return Result{}, wrapSend(name, err)
	}
	data.Response = Clean(strings.TrimSpace(data.Response))
	to := "@" + in.Domain
	if in.Target != "" {
		to += " @" + in.Target
	}
	text := fmt.Sprintf("sent to %s (%s)", to, name)
	if data.Response != "" {
		r, _ := truncate(collapse(data.Response), 200)
		text += ": " + r
	}
	return Result{Text: Clean(text), Data: data}, nil
}

func wrapSend(target string, err error) error {
	if e, ok := err.(*codes.Error); ok {
		return &codes.Error{Code: e.Code, Msg: "could not deliver to " + target + ": " + e.Msg, Err: e.Err}
	}
	return codes.Wrap(codes.DeliveryFailed, err, "could not deliver to %s", target)
}

func (s *Sender) routeKeys() []string {
	keys := make([]string, 0, len(s.routes))
	for k := range s.routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeStdout writes the delivery line to the Sender's writer and returns
// it, so that a host printing JSON can carry it in the result instead.
func (s *Sender) writeStdout(in intent.Send) (string, error) {
	head := "@" + in.Domain
	if in.Target != "" {
		head += " @" + in.Target
	}
	line := fmt.Sprintf("[%s] %s", Clean(head), Clean(in.Content))
	if s.out == nil {
		return line, nil
	}
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_, err := io.WriteString(s.out, line+"\n")
	return line, err
}

// sentLine is one line of a file target.
type sentLine struct {
	Time   string          `json:"time"`
	Intent json.RawMessage `json:"intent"`
}

// appendFile appends one JSON line in a single write, so that concurrent
// writers (other processes included, through O_APPEND) never interleave.
func (s *Sender) appendFile(path string, payload []byte) error {
	path, err := expandHome(path)
	if err != nil {
		return err
	}
	line, err := json.Marshal(sentLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Intent: payload})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return codes.Wrap(codes.DeliveryFailed, err, "cannot create the directory of %s", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return codes.Wrap(codes.DeliveryFailed, err, "cannot open %s", path)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return codes.Wrap(codes.DeliveryFailed, err, "cannot write %s", path)
	}
	if err := f.Close(); err != nil {
		return codes.Wrap(codes.DeliveryFailed, err, "cannot write %s", path)
	}
	return nil
}

func expandHome(path string) (string, error) {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", codes.Wrap(codes.NotConfigured, err, "cannot expand ~ in %s", path)
	}
	return filepath.Join(home, rest), nil
}
