package executor

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the commands that targets,
// tools and providers run: "TESTBIN executor-helper MODE ARGS...". No shell
// is involved anywhere.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "executor-helper" {
		os.Exit(helperMain(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// helperRecord is what the "record" mode writes.
type helperRecord struct {
	Argv  []string `json:"argv"`
	Stdin string   `json:"stdin"`
	Env   []string `json:"env"`
}

func helperMain(mode string, args []string) int {
	switch mode {
	case "record": // record OUT ARGS...: write argv, stdin and env to OUT
		in, _ := io.ReadAll(os.Stdin)
		b, _ := json.Marshal(helperRecord{Argv: args[1:], Stdin: string(in), Env: os.Environ()})
		if err := os.WriteFile(args[0], b, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Print("recorded")
	case "echo":
		io.Copy(os.Stdout, os.Stdin)
	case "print":
		fmt.Print(strings.Join(args, " "))
	case "fail":
		fmt.Fprint(os.Stderr, "boom \x1b[31mred\x1b[0m "+strings.Repeat("e", 5000))
		return 3
	case "complain": // usage noise, then the reason on the last line
		fmt.Fprint(os.Stderr, "notify: loading config\nnotify: connecting\n\nnotify: no such channel\n")
		return 3
	case "sleep":
		time.Sleep(10 * time.Second)
	case "spawn": // spawn PIDFILE: start a sleeping grandchild, record its pid, sleep
		exe, _ := os.Executable()
		child := exec.Command(exe, "executor-helper", "sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.WriteFile(args[0], []byte(strconv.Itoa(child.Process.Pid)), 0o600)
		time.Sleep(10 * time.Second)
	case "spam":
		os.Stdout.Write([]byte(strings.Repeat("s", 1<<20)))
	case "search": // reads {"query":...} or takes the query as args[0]
		q := strings.Join(args, " ")
		if q == "" {
			var in struct{ Query string }
			json.NewDecoder(os.Stdin).Decode(&in)
			q = in.Query
		}
		json.NewEncoder(os.Stdout).Encode(map[string]any{"items": []map[string]string{
			{"name": "About " + q, "link": "https://a.test/" + q, "text": "first"},
			{"name": "More " + q, "link": "https://b.test/", "text": "second"},
		}})
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		return 2
	}
	return 0
}

// helperArgv returns the argv that runs this test binary in mode.
func helperArgv(t testing.TB, mode string, args ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, "executor-helper", mode}, args...)
}

func readRecord(t testing.TB, path string) helperRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r helperRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
