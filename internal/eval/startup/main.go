// Command startup measures what a short dialect command costs as a
// process, against a Go hello-world binary (and, for patch apply, GNU
// patch), in one run with the commands alternated so that the machine's
// swings hit them alike.
//
//	go run ./internal/eval/startup [-n 200] [-diffs ../shared/data/diffs]
//
// It builds cmd/dialect and a hello-world program into a temporary
// directory, then runs each command -n times, round-robin, and reports
// the median process time (user + system CPU, from the child's rusage)
// and the median wall time of each, and their ratios to hello-world (to
// GNU patch for patch apply, per diff). Two floors are measured beside
// them: `dialect version`, the binary doing nothing (its package
// initialisation and the pages it touches), and the store floor
// (./floor: open the store, record what one action records, close). The targets are: `dialect run` of
// one /calc within 3× hello-world's process time, `dialect config check`
// within 1.5×, `dialect patch apply` within 2× GNU patch per diff.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const hello = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

// job is one command measured.
type job struct {
	name  string
	argv  []string
	stdin string
	env   []string
	// argvs, when set, are run in turn instead of argv: one diff each.
	argvs [][]string
	next  int
	// base names the job the ratio is taken against.
	base string
	cpu  []time.Duration
	wall []time.Duration
}

func main() {
	n := flag.Int("n", 200, "runs of each command")
	diffs := flag.String("diffs", filepath.Join("..", "shared", "data", "diffs"), "the real diffs (NNNN/old and NNNN/diff.patch) for patch apply; skipped when absent")
	flag.Parse()
	log.SetFlags(0)
	dir, err := os.MkdirTemp("", "dialect-startup")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "dialect")
	helloBin := filepath.Join(dir, "hello")
	floorBin := filepath.Join(dir, "floor")
	build(bin, "./cmd/dialect")
	build(floorBin, "./internal/eval/startup/floor")
	if err := os.WriteFile(filepath.Join(dir, "hello.go"), []byte(hello), 0o644); err != nil {
		log.Fatal(err)
	}
	build(helloBin, filepath.Join(dir, "hello.go"))

	env := append(os.Environ(), "DIALECT_DB="+filepath.Join(dir, "state.db"), "DIALECT_CONFIG=", "XDG_CONFIG_HOME="+dir)
	jobs := []*job{
		{name: "hello-world", argv: []string{helloBin}},
		{name: "dialect version", argv: []string{bin, "version"}, base: "hello-world"},
		{name: "dialect config check", argv: []string{bin, "config", "check"}, base: "hello-world"},
		{name: "dialect run (one /calc)", argv: []string{bin, "run"}, stdin: "/calc 2 + 2\n", base: "hello-world"},
		{name: "store floor", argv: []string{floorBin}, base: "hello-world"},
	}
	if p, err := exec.LookPath("patch"); err == nil {
		if pairs := findDiffs(*diffs); len(pairs) > 0 {
			out := filepath.Join(dir, "patched")
			gnu, ours := &job{name: "GNU patch (per diff)"}, &job{name: "dialect patch apply", base: "GNU patch (per diff)"}
			for _, d := range pairs {
				gnu.argvs = append(gnu.argvs, []string{p, "-s", "-o", out, d[0], d[1]})
				ours.argvs = append(ours.argvs, []string{bin, "patch", "apply", "--file", d[0], "--patch", d[1]})
			}
			jobs = append(jobs, gnu, ours)
		} else {
			log.Printf("no diffs under %s: patch apply not measured", *diffs)
		}
	} else {
		log.Printf("GNU patch is not installed (apt-get install patch): patch apply not measured")
	}
	for _, j := range jobs {
		j.env = env
		j.once() // warm the page cache and the store
	}
	for i := 0; i < *n; i++ {
		for _, j := range jobs {
			j.once()
		}
	}
	by := map[string]*job{}
	fmt.Printf("%-26s %10s %10s %8s %8s\n", "command", "cpu p50", "wall p50", "cpu ×", "wall ×")
	for _, j := range jobs {
		by[j.name] = j
		cpu, wall := median(j.cpu), median(j.wall)
		ratio := func(a, b time.Duration) string { return fmt.Sprintf("%.2f", float64(a)/float64(b)) }
		rc, rw := "", ""
		if b := by[j.base]; b != nil {
			rc, rw = ratio(cpu, median(b.cpu)), ratio(wall, median(b.wall))
		}
		fmt.Printf("%-26s %10s %10s %8s %8s\n", j.name, cpu.Round(time.Microsecond), wall.Round(time.Microsecond), rc, rw)
	}
	fmt.Printf("(%d runs each, alternated; cpu is the child's user+system time)\n", *n)
}

// once runs the job one time and records its times.
func (j *job) once() {
	argv := j.argv
	if len(j.argvs) > 0 {
		argv = j.argvs[j.next%len(j.argvs)]
		j.next++
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = j.env
	cmd.Stdin = strings.NewReader(j.stdin)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s: %v\n%s", j.name, err, errb.String())
	}
	j.wall = append(j.wall, time.Since(start))
	j.cpu = append(j.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func build(out, pkg string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go build %s: %v", pkg, err)
	}
}

// findDiffs returns the (old, diff.patch) pairs under dir's NNNN
// folders (../shared/data/diffs: GNU patch turns each old into new).
func findDiffs(dir string) [][2]string {
	olds, _ := filepath.Glob(filepath.Join(dir, "*", "*", "old"))
	var out [][2]string
	for _, o := range olds {
		d := filepath.Join(filepath.Dir(o), "diff.patch")
		if _, err := os.Stat(d); err == nil {
			out = append(out, [2]string{o, d})
		}
	}
	return out
}
