package dialect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedDefaultLoads(t *testing.T) {
	cfg, err := ParseConfig("embedded default", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cfg.Detect.Reconsideration); got != 19 {
		t.Errorf("default reconsideration phrases = %d, want the 19 of docs/language.md §2", got)
	}
	if cfg.Detect.MaxActionBytes != 64<<10 {
		t.Errorf("max_action_bytes = %d, want 65536", cfg.Detect.MaxActionBytes)
	}
	if cfg.Resolve.Edits.Loose != (EditAllowance{2, 3}) || cfg.Resolve.Edits.Normal != (EditAllowance{1, 2}) {
		t.Errorf("edit allowances = %+v, want docs/language.md §4's", cfg.Resolve.Edits)
	}
	if cfg.Resolve.Embeddings.Timeout.Seconds() != 2 {
		t.Errorf("embeddings timeout = %v", cfg.Resolve.Embeddings.Timeout)
	}
}

func TestConfigOverlaysDefaults(t *testing.T) {
	cfg, err := ParseConfig("user.toml", []byte(`
[detect]
confirm_tokens = 7

[dialect.verbs.notify]
aliases = ["alert", "heads up"]
maps_to = "send"
default_target = { type = "agent", id = "anchor" }
requires_permission = true
grammar = { file = "n.agr", start = "Start" }
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Detect.ConfirmTokens != 7 {
		t.Errorf("confirm_tokens = %d, want 7", cfg.Detect.ConfirmTokens)
	}
	if len(cfg.Detect.Reconsideration) != 19 {
		t.Errorf("an absent key lost its default: %d phrases", len(cfg.Detect.Reconsideration))
	}
	n := cfg.Dialect.Verbs["notify"]
	if n.MapsTo != "send" || n.DefaultTarget == nil || n.DefaultTarget.ID != "anchor" || !n.RequiresPermission || n.Grammar.Start != "Start" {
		t.Errorf("notify = %+v", n)
	}
	if cfg.Source != "user.toml" {
		t.Errorf("Source = %q", cfg.Source)
	}
}

func TestConfigErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name       string
		toml       string
		line, col  int
		key, inMsg string
	}{
		{"unknown key", "[detect]\nconfirm_tokens = 3\nconfirm_tokenz = 4\n", 3, 1, "detect.confirm_tokenz", "unknown key"},
		{"unknown table", "\n[detekt]\nx = 1\n", 2, 2, "detekt", "unknown key"},
		{"wrong type", "[detect]\nmax_action_bytes = \"big\"\n", 2, 20, "detect.max_action_bytes", "string"},
		{"bad enum", "[dialect.verbs.x]\naliases = [\"y\"]\n  strictness = \"lax\"\n", 3, 3, "dialect.verbs.x.strictness", "loose, normal or strict"},
		{"bad duration", "[resolve.embeddings]\ntimeout = \"soon\"\n", 2, 0, "resolve.embeddings.timeout", "duration"},
		{"syntax", "[detect\n", 1, 0, "", "expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("f.toml", []byte(tt.toml))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *ConfigError", err, err)
			}
			if ce.File != "f.toml" || ce.Line != tt.line || (tt.col != 0 && ce.Column != tt.col) {
				t.Errorf("position = %s:%d:%d, want f.toml:%d:%d", ce.File, ce.Line, ce.Column, tt.line, tt.col)
			}
			if ce.Key != tt.key {
				t.Errorf("key = %q, want %q", ce.Key, tt.key)
			}
			if !strings.Contains(err.Error(), tt.inMsg) {
				t.Errorf("message %q does not mention %q", err, tt.inMsg)
			}
		})
	}
}

func TestLoadConfigLookupOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	explicit := write("explicit.toml", "[detect]\nconfirm_tokens = 1\n")
	env := write("env.toml", "[detect]\nconfirm_tokens = 2\n")
	write("wd/dialect.toml", "[detect]\nconfirm_tokens = 3\n")
	write("xdg/dialect/dialect.toml", "[detect]\nconfirm_tokens = 4\n")
	l := ConfigLookup{Explicit: explicit, Env: env, WorkDir: filepath.Join(dir, "wd"), XDG: filepath.Join(dir, "xdg")}
	for want := 1; want <= 5; want++ {
		cfg, err := LoadConfig(l)
		if err != nil {
			t.Fatal(err)
		}
		got := cfg.Detect.ConfirmTokens
		if want == 5 {
			if got != 50 || cfg.Source != "embedded default" {
				t.Errorf("with no file: confirm_tokens=%d source=%q, want the embedded 50", got, cfg.Source)
			}
			break
		}
		if got != want {
			t.Errorf("step %d: confirm_tokens = %d (from %s)", want, got, cfg.Source)
		}
		switch want {
		case 1:
			l.Explicit = ""
		case 2:
			l.Env = ""
		case 3:
			l.WorkDir = filepath.Join(dir, "nowhere")
		case 4:
			l.XDG = ""
		}
	}
	if _, err := LoadConfig(ConfigLookup{Explicit: filepath.Join(dir, "missing.toml")}); err == nil {
		t.Error("a missing --config file was not an error")
	}
}

func TestBundledFileMatchesRoot(t *testing.T) {
	data, err := os.ReadFile("dialect.toml")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(DefaultConfigTOML) {
		t.Error("embedded default differs from ./dialect.toml")
	}
	if _, err := ParseConfig("dialect.toml", data); err != nil {
		t.Error(err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(DefaultConfigTOML))
	f.Add([]byte("[detect]\nconfirm_tokens = 3\n"))
	f.Add([]byte("[dialect.verbs.x]\naliases = [\"a\", \"b c\"]\nstrictness = \"strict\"\n"))
	f.Add([]byte("[[x]]\n= \"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("fuzz.toml", data)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		if cfg == nil || cfg.Detect.MaxActionBytes <= 0 {
			t.Fatalf("accepted an invalid config: %+v", cfg)
		}
	})
}
