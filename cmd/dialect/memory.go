package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pattern-dialect/dialect/store"
)

func init() {
	register(&command{
		name: "memory",
		usage: "ls [--kind archival|working] [--json]\n" +
			"show NAME [--version N] [--kind K] [--json]\n" +
			"history NAME [--kind K] [--json]\n" +
			"restore NAME N [--kind K] [--as WHO] [--json]\n" +
			"rm NAME [--kind K] [--as WHO] [--json]\n" +
			"export [--kind K] > FILE\n" +
			"import FILE|- [--json]",
		short: "list, read, restore, remove, export and import memory blocks and their versions",
		run:   runMemory,
	})
}

// memFlags are the flags every memory subcommand shares.
type memFlags struct {
	*flags
	kind   *string
	asJSON *bool
	as     *string
}

func newMemFlags(sio *stdio, who bool) *memFlags {
	f := &memFlags{flags: newFlags(commands["memory"], sio).state()}
	f.kind = f.String("kind", "", "archival (/recall) or working (/context); default: both for ls and export, else archival")
	f.asJSON = f.Bool("json", false, "print JSON")
	if who {
		f.as = f.String("as", "owner", "who makes the change, for the block's history")
	}
	return f
}

// kinds are the kinds --kind names; def when it names none.
func (f *memFlags) kinds(def ...store.Kind) ([]store.Kind, error) {
	switch strings.ToLower(*f.kind) {
	case "":
		return def, nil
	case "archival", "recall":
		return []store.Kind{store.Archival}, nil
	case "working", "context":
		return []store.Kind{store.Working}, nil
	}
	return nil, usageError("--kind is archival or working, not %q", *f.kind)
}

func runMemory(ctx context.Context, sio *stdio, args []string) error {
	sub, args := subcommand(args, "ls", "list", "show", "read", "history", "restore", "rm", "remove", "delete", "export", "import")
	switch sub {
	case "ls", "list":
		return memoryList(ctx, sio, args)
	case "show", "read":
		return memoryShow(ctx, sio, args)
	case "history":
		return memoryHistory(ctx, sio, args)
	case "restore":
		return memoryRestore(ctx, sio, args)
	case "rm", "remove", "delete":
		return memoryRemove(ctx, sio, args)
	case "export":
		return memoryExport(ctx, sio, args)
	case "import":
		return memoryImport(ctx, sio, args)
	}
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			printUsage(sio.out, commands["memory"])
			return errHelp
		}
	}
	return usageError("memory needs a command: ls, show, history, restore, rm, export or import")
}

// openStore parses args, reads --kind (def when it names none) and opens
// the store in force.
func (f *memFlags) openStore(ctx context.Context, args []string, min, max int, def ...store.Kind) ([]string, []store.Kind, store.Store, func(), error) {
	pos, err := f.parse(args, min, max)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	kinds, err := f.kinds(def...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st, done, err := f.store(ctx)
	return pos, kinds, st, done, err
}

// store opens the store in force; call done when finished.
func (f *memFlags) store(ctx context.Context) (store.Store, func(), error) {
	rt, err := f.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, err := rt.Store(ctx)
	if err != nil {
		rt.Close()
		return nil, nil, err
	}
	return st, func() { rt.Close() }, nil
}

func encoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// blockJSON is a block as `memory ls --json` and `show --json` print it.
type blockJSON struct {
	Kind    store.Kind `json:"kind"`
	Name    string     `json:"name"`
	Version int        `json:"version"`
	Created time.Time  `json:"created"`
	Updated time.Time  `json:"updated"`
	Chars   int        `json:"chars"`
	Tags    []string   `json:"tags,omitempty"`
	Project string     `json:"project,omitempty"`
	Content string     `json:"content,omitempty"`
}

func toJSON(b store.Block, content bool) blockJSON {
	j := blockJSON{Kind: b.Kind, Name: b.Name, Version: b.Version, Created: b.Created.UTC(), Updated: b.Updated.UTC(),
		Chars: len([]rune(b.Content)), Tags: b.Tags, Project: b.Project}
	if content {
		j.Content = b.Content
	}
	return j
}

func memoryList(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, false)
	_, kinds, st, done, err := f.openStore(ctx, args, 0, 0, store.Archival, store.Working)
	if err != nil {
		return err
	}
	defer done()
	enc := encoder(sio.out)
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	n := 0
	for _, k := range kinds {
		bs, err := st.Blocks(ctx, k)
		if err != nil {
			return err
		}
		for _, b := range bs {
			if *f.asJSON {
				if err := enc.Encode(toJSON(b, false)); err != nil {
					return err
				}
				continue
			}
			if n == 0 {
				fmt.Fprintln(tw, "KIND\tNAME\tVERSION\tCHARS\tUPDATED\tLABELS\tSTART")
			}
			fmt.Fprintf(tw, "%s\t%s\tv%d\t%d\t%s\t%s\t%s\n", b.Kind, oneLine(b.Name), b.Version, len([]rune(b.Content)),
				b.Updated.Local().Format("2006-01-02 15:04"), cell(labels(b)), oneLine(store.Excerpt(b.Content, 40)))
			n++
		}
	}
	if !*f.asJSON && n == 0 {
		fmt.Fprintln(sio.out, "no memory blocks")
	}
	return tw.Flush()
}

func labels(b store.Block) string {
	var parts []string
	for _, t := range b.Tags {
		parts = append(parts, "#"+t)
	}
	if b.Project != "" {
		parts = append(parts, "*"+b.Project)
	}
	return strings.Join(parts, " ")
}

func memoryShow(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, false)
	version := f.Int("version", 0, "show this version instead of the current one")
	pos, kinds, st, done, err := f.openStore(ctx, args, 1, 1, store.Archival)
	if err != nil {
		return err
	}
	defer done()
	name, kind := pos[0], kinds[0]
	if *version < 0 {
		return usageError("--version counts from 1")
	}
	if *version > 0 {
		v, err := st.Version(ctx, kind, name, *version)
		if err != nil {
			return missingBlock(ctx, st, kind, name, err)
		}
		if *f.asJSON {
			v.At = v.At.UTC()
			return encoder(sio.out).Encode(struct {
				Kind store.Kind `json:"kind"`
				Name string     `json:"name"`
				store.Version
			}{kind, name, v})
		}
		fmt.Fprintf(sio.out, "%s v%d  %s  %s  %s\n%s\n", oneLine(name), v.Version, v.At.Local().Format("2006-01-02 15:04"),
			oneLine(orDash(v.Agent)), oneLine(v.Op), safeText(v.Content))
		return nil
	}
	b, err := st.Get(ctx, kind, name)
	if err != nil {
		return missingBlock(ctx, st, kind, name, err)
	}
	if *f.asJSON {
		return encoder(sio.out).Encode(toJSON(b, true))
	}
	fmt.Fprintf(sio.out, "%s v%d  %s  %s\n%s\n", oneLine(b.Name), b.Version, b.Updated.Local().Format("2006-01-02 15:04"),
		oneLine(labels(b)), safeText(b.Content))
	return nil
}

// missingBlock says what is missing: a deleted block (with the version to
// restore), a version, or a block never written.
func missingBlock(ctx context.Context, st store.Store, kind store.Kind, name string, err error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	vs, herr := st.History(ctx, kind, name)
	switch {
	case herr != nil || len(vs) == 0:
		return fmt.Errorf("there is no %s block %q (dialect memory ls lists them)", kind, name)
	case vs[len(vs)-1].Deleted():
		last := vs[len(vs)-1]
		return fmt.Errorf("%s block %q was deleted in v%d; dialect memory restore %s %d brings it back", kind, name, last.Version, name, last.Version-1)
	}
	return fmt.Errorf("%s block %q has versions %d to %d: %v", kind, name, vs[0].Version, vs[len(vs)-1].Version, err)
}

func memoryHistory(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, false)
	pos, kinds, st, done, err := f.openStore(ctx, args, 1, 1, store.Archival)
	if err != nil {
		return err
	}
	defer done()
	vs, err := st.History(ctx, kinds[0], pos[0])
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return missingBlock(ctx, st, kinds[0], pos[0], store.ErrNotFound)
	}
	if *f.asJSON {
		enc := encoder(sio.out)
		for i, v := range vs {
			prev := ""
			if i > 0 {
				prev = vs[i-1].Content
			}
			if err := enc.Encode(struct {
				Version int       `json:"version"`
				Op      string    `json:"op"`
				At      time.Time `json:"at"`
				Agent   string    `json:"agent,omitempty"`
				Chars   int       `json:"chars"`
				Tags    []string  `json:"tags,omitempty"`
				Project string    `json:"project,omitempty"`
				Summary string    `json:"summary"`
			}{v.Version, v.Op, v.At.UTC(), v.Agent, len([]rune(v.Content)), v.Tags, v.Project, store.Summary(prev, v, i == 0)}); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintln(sio.out, safeText(store.FormatHistory(pos[0], vs, 0)))
	return nil
}

func memoryRestore(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, true)
	pos, err := f.parse(args, 2, 2)
	if err != nil {
		return err
	}
	kinds, err := f.kinds(store.Archival)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(pos[1]), "v"))
	if err != nil || n <= 0 {
		return usageError("%q is not a version number (1, 2, ... or v1, v2, ...)", pos[1])
	}
	st, done, err := f.store(ctx)
	if err != nil {
		return err
	}
	defer done()
	b, err := store.Restore(ctx, st, kinds[0], pos[0], n, *f.as, nil)
	if err != nil {
		return missingBlock(ctx, st, kinds[0], pos[0], err)
	}
	if *f.asJSON {
		return encoder(sio.out).Encode(toJSON(b, true))
	}
	fmt.Fprintf(sio.out, "restored %s to v%d as v%d (every version stays in its history)\n", oneLine(b.Name), n, b.Version)
	return nil
}

func memoryRemove(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, true)
	pos, kinds, st, done, err := f.openStore(ctx, args, 1, 1, store.Archival)
	if err != nil {
		return err
	}
	defer done()
	b, err := st.Apply(ctx, store.Change{Kind: kinds[0], Name: pos[0], Op: "delete", Agent: *f.as, Remove: true})
	if err != nil {
		return missingBlock(ctx, st, kinds[0], pos[0], err)
	}
	if *f.asJSON {
		return encoder(sio.out).Encode(map[string]any{"kind": b.Kind, "name": b.Name, "deleted_in": b.Version})
	}
	fmt.Fprintf(sio.out, "deleted %s in v%d; its history is kept (dialect memory restore %s %d brings it back)\n",
		oneLine(b.Name), b.Version, oneLine(b.Name), b.Version-1)
	return nil
}

func memoryExport(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, false)
	_, kinds, st, done, err := f.openStore(ctx, args, 0, 0, store.Archival, store.Working)
	if err != nil {
		return err
	}
	defer done()
	n, err := store.Export(ctx, st, sio.out, kinds...)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.err, "dialect memory export: %d blocks with their histories\n", n)
	return nil
}

func memoryImport(ctx context.Context, sio *stdio, args []string) error {
	f := newMemFlags(sio, false)
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	in := sio.in
	if pos[0] != "-" {
		file, err := os.Open(pos[0])
		if err != nil {
			return usageErr{err}
		}
		defer file.Close()
		in = file
	}
	// Read and check everything before the store is opened: a broken line
	// changes nothing.
	recs, err := store.ReadRecords(in)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	st, done, err := f.store(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := st.Import(ctx, recs); err != nil {
		if errors.Is(err, store.ErrExists) {
			return fmt.Errorf("%v; nothing was imported (remove it first, or import into another store with --db)", err)
		}
		return err
	}
	if *f.asJSON {
		return encoder(sio.out).Encode(map[string]int{"imported": len(recs)})
	}
	fmt.Fprintf(sio.out, "imported %d blocks with their histories\n", len(recs))
	return nil
}
