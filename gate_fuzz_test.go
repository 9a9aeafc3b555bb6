package dialect

import (
	"context"
	"strings"
	"testing"

	"github.com/pattern-dialect/dialect/store"
	"github.com/pattern-dialect/dialect/verbs"
)

// gateConfigs are the configurations FuzzGate draws from: permission
// targets and verb permissions written in mixed case, with and without
// "@", naming domains and single targets.
var gateConfigs = []string{
	"[permission]\ntargets = [\"agent:Anchor\", \"BlueSky\"]\n",
	"[permission]\ntargets = [\"@discord\", \"user\"]\n",
	"[dialect.verbs.send]\nrequires_permission = true\n",
	"[dialect.verbs.shout]\nmaps_to = \"send\"\ndefault_target = { type = \"agent\", id = \"anchor\" }\n\n[permission]\ntargets = [\"AGENT:eve\"]\n",
}

// FuzzGate: whatever verb, domain and target a model writes, in whatever
// case, the executor reaches exactly what the gate decided on. An action
// the gate let run delivers to the folded domain and target, which no
// listed target covers; one it queued delivers nothing until approved,
// and then to the target the queue recorded; one it denied never
// delivers.
func FuzzGate(f *testing.F) {
	f.Add(uint8(0), uint8(0), "agent", "ANCHOR", true)
	f.Add(uint8(0), uint8(1), "bluesky", "someone", false)
	f.Add(uint8(1), uint8(2), "Discord", "General", true)
	f.Add(uint8(2), uint8(3), "user", "", false)
	f.Add(uint8(3), uint8(4), "agent", "EvE", true)
	f.Add(uint8(3), uint8(4), "agent", "eve", false)
	type env struct {
		rt   *Runtime
		sent func() []delivered
		st   store.Store
	}
	var envs []env
	for _, c := range gateConfigs {
		rt, sent := gateRuntime(f, c)
		envs = append(envs, env{rt, sent, mustStore(f, rt)})
	}
	forms := []string{"send", "tell", "post", "dm", "shout", "SEND", "Tell"}
	f.Fuzz(func(t *testing.T, cfg, verb uint8, domain, target string, approve bool) {
		e := envs[int(cfg)%len(envs)]
		domain, target = nameOnly(domain), nameOnly(target)
		if domain == "" {
			return
		}
		v := forms[int(verb)%len(forms)]
		if strings.EqualFold(v, "shout") && cfg%uint8(len(envs)) != 3 {
			v = "send"
		}
		line := "/" + v + " @" + domain
		if target != "" {
			line += " @" + target
		}
		line += ` "fuzz"`
		before := len(e.sent())
		res, err := e.rt.Run(context.Background(), Message{Text: line + "\n", Agent: "fuzzer"})
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		after := e.sent()
		switch r.Status {
		case StatusOK:
			if len(after) != before+1 {
				t.Fatalf("%s: ran but delivered %d", line, len(after)-before)
			}
			d := after[len(after)-1]
			if d.Domain != strings.ToLower(d.Domain) || d.Target != strings.ToLower(d.Target) {
				t.Fatalf("%s: delivered to %s:%s, not folded", line, d.Domain, d.Target)
			}
			to := d.Domain
			if d.Target != "" {
				to += ":" + d.Target
			}
			if e.rt.listedTarget(to) || e.rt.requiresPermission(sendCall(e.rt, v)) {
				t.Fatalf("%s: delivered to %s, which needs approval", line, to)
			}
		case StatusPending:
			if len(after) != before {
				t.Fatalf("%s: queued and delivered", line)
			}
			p, err := e.st.GetPending(context.Background(), r.Pending)
			if err != nil {
				t.Fatal(err)
			}
			if p.Target != strings.ToLower(p.Target) || p.Verb != "send" {
				t.Fatalf("%s: queued as %s to %s", line, p.Verb, p.Target)
			}
			if !approve {
				return
			}
			if res, err := e.rt.Approve(context.Background(), r.Pending, "owner", nil); err != nil || res.Status != StatusOK {
				t.Fatalf("%s: approve: %+v %v", line, res, err)
			}
			got := e.sent()
			if len(got) != before+1 {
				t.Fatalf("%s: approved, delivered %d", line, len(got)-before)
			}
			d := got[len(got)-1]
			to := d.Domain
			if d.Target != "" {
				to += ":" + d.Target
			}
			if to != p.Target {
				t.Fatalf("%s: queued for %s, delivered to %s", line, p.Target, to)
			}
		default:
			if len(after) != before {
				t.Fatalf("%s: %s and delivered", line, r.Status)
			}
		}
	})
}

// nameOnly keeps the letters and digits of s: what the send grammar reads
// as an @name.
func nameOnly(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sendCall is the call of a delivery written with verb, for asking the
// gate's permission rules about it.
func sendCall(rt *Runtime, verb string) verbs.Call {
	return verbs.Call{Verb: strings.ToLower(verb), Runs: "send"}
}
