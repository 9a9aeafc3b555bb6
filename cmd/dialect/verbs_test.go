package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func verbsRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &stdio{in: strings.NewReader(""), out: &out, err: &errb}, append([]string{"verbs"}, args...))
	return code, out.String(), errb.String()
}

func TestVerbsCmdTable(t *testing.T) {
	code, out, errs := verbsRun(t, "--config", parseTestConfig(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var squeezed []string // each line with runs of spaces folded to one
	for _, l := range strings.Split(out, "\n") {
		squeezed = append(squeezed, strings.Join(strings.Fields(l), " "))
	}
	flat := strings.Join(squeezed, "\n")
	for _, want := range []string{
		"VERB STRICTNESS ALIASES MAPS TO NOTES", "recall loose remember, store, save, archive, forget, memorize, jot down - -",
		"approve strict allow, permit, ok, yes - authority", "notify normal alert, ping, heads up send -",
		"shame normal call out, roast send needs approval", "grammars/papers.agr",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestVerbsCmdInstructions(t *testing.T) {
	cfg := parseTestConfig(t)
	code, out, errs := verbsRun(t, "--instructions", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"# Actions", "/do /recall", "/papers (works like /search)", "/send @user"} {
		if !strings.Contains(out, want) {
			t.Errorf("instructions lack %q:\n%s", want, out)
		}
	}
	// Nothing delivers to agents or bluesky, no agent holds authority,
	// there is no web provider: none of it is taught.
	for _, absent := range []string{"/notify", "/shame", "/approve", "/web", "@thread"} {
		if strings.Contains(out, absent) {
			t.Errorf("instructions teach %q, which does not work here", absent)
		}
	}
	// Routes and an agent with authority: taught to that agent only.
	full := cfg + ".full.toml"
	base, _ := os.ReadFile(cfg)
	os.WriteFile(full, append(base, []byte(`
[exec.send.targets.hook]
type = "webhook"
url = "https://hooks.example/x"
[exec.send.routes]
"agent:anchor" = "hook"
"bluesky" = "hook"
user = "stdout"
[agents.anchor]
authority = ["approve", "deny"]
`)...), 0o644)
	_, anchor, _ := verbsRun(t, "--instructions", "--agent", "anchor", "--config", full)
	_, scout, _ := verbsRun(t, "--instructions", "--agent", "scout", "--config", full)
	for _, want := range []string{"/notify — Quick notification to the coordinator (works like /send)", "e.g. /notify something weird happened",
		"/shame (works like /send; queued for approval)", "/approve — approve a pending action", "/tell @anchor"} {
		if !strings.Contains(anchor, want) {
			t.Errorf("anchor's instructions lack %q:\n%s", want, anchor)
		}
	}
	if strings.Contains(scout, "/approve") || !strings.Contains(scout, "/notify") {
		t.Errorf("scout holds no authority but is taught it, or lacks the routes:\n%s", scout)
	}
	if code, _, _ := verbsRun(t, "extra"); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
	if code, _, _ := verbsRun(t, "--instructions", "--agent", "no*pe"); code != 2 {
		t.Errorf("a bad agent name: exit %d", code)
	}
}

func TestVerbsCmdJSON(t *testing.T) {
	code, out, errs := verbsRun(t, "--json", "--config", parseTestConfig(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 19 {
		t.Fatalf("%d verbs, want 16 built-in and 3 custom:\n%s", len(lines), out)
	}
	for _, want := range []string{
		`{"name":"recall","aliases":["remember","store","save","archive","forget","memorize","jot down"],"strictness":"loose"`,
		`{"name":"shame","aliases":["call out","roast"],"strictness":"normal","form":"/shame @domain [@target] \"message\"","custom":true,"maps_to":"send","authority":false,"requires_permission":true}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %s\n%s", want, out)
		}
	}
}
