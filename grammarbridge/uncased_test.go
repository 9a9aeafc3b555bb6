package grammarbridge

import "testing"

// TestUncasedGrammars checks, as a user of those grammars would, some of
// the real grammars that have no reference cases, in TypeAgent-compatible
// mode (and taskflow/powershell phrase sets in both modes).
func TestUncasedGrammars(t *testing.T) {
	dir := dataDir(t)
	tests := []struct {
		grammar string
		opts    Options
		cases   []matchCase
	}{
		{"timer", Options{}, []matchCase{
			{"toast me stretch in an hour", `[{"actionName":"setReminder","parameters":{"kind":"toast","message":"stretch","when":"an hour"}}]`},
		}},
		{"utility", Options{}, []matchCase{
			{"search the web for golang generics", `[{"actionName":"webSearch","parameters":{"query":"golang generics"}}]`},
			{"look up weather online", `[{"actionName":"webSearch","parameters":{"query":"weather"}}]`},
			// Leading separators are trimmed from wildcard text: "/etc" loses its slash.
			{"read the file /etc/hosts", `[{"actionName":"readFile","parameters":{"path":"etc/hosts"}},{"actionName":"readFile","parameters":{"path":"file /etc/hosts"}},{"actionName":"readFile","parameters":{"path":"the file /etc/hosts"}}]`},
		}},
		{"vampire", Options{}, []matchCase{
			{"add milk to my shopping list", `[{"actionName":"addItems","parameters":{"items":["milk"],"listName":"my shopping"}},{"actionName":"addItems","parameters":{"items":["milk"],"listName":"shopping"}}]`},
		}},
		{"screencapture", Options{}, []matchCase{
			{"take a screenshot", `[{"actionName":"takeScreenshot","parameters":{}}]`},
			{"take a screenshot of the browser window", `[{"actionName":"takeScreenshot","parameters":{"target":"the browser window"}}]`},
		}},
		{"playerLocal", Options{}, []matchCase{
			{"what's playing", `[{"actionName":"status"}]`},
			{"play the third track", `[{"actionName":"playFromQueue","parameters":{"trackNumber":3}}]`},
			{"Pause the music", `[{"actionName":"pause"}]`},
			{"set volume to 50", `[{"actionName":"setVolume","parameters":{"level":50}}]`},
		}},
		{"taskflow", Options{}, []matchCase{
			{"list all the available task flows", `[{"actionName":"listTaskFlows"}]`},
			{"please list task flows", `[]`},
			{"remove the task flow nightly build", `[{"actionName":"deleteTaskFlow","parameters":{"name":"nightly build"}}]`},
			{"deletetaskflowfoo", `[{"actionName":"deleteTaskFlow","parameters":{"name":"foo"}}]`},
		}},
		{"taskflow", Options{PhraseSets: true}, []matchCase{
			{"please list task flows", `[{"actionName":"listTaskFlows"}]`},
			{"hey thanks list task flows", `[{"actionName":"listTaskFlows"}]`},
		}},
		{"powershell", Options{}, []matchCase{
			{"list powershell flows", `[{"actionName":"listPowerShellFlows"}]`},
			{"please list powershell flows", `[]`},
			{"deletepowershellflowbackup", `[{"actionName":"deletePowerShellFlow","parameters":{"name":"backup"}}]`},
		}},
		{"powershell", Options{PhraseSets: true}, []matchCase{
			{"please list powershell flows", `[{"actionName":"listPowerShellFlows"}]`},
		}},
	}
	for _, tt := range tests {
		g := compileData(t, dir, tt.grammar, tt.opts)
		t.Run(tt.grammar, func(t *testing.T) { runMatchCases(t, g, tt.cases) })
	}
}
