package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/pattern-dialect/dialect/store"
)

func init() {
	register(&command{
		name:  "store",
		usage: "copy --from SRC --to DST [--json]",
		short: "copy all state between two stores (SQLite file or postgres:// URL)",
		run:   runStore,
	})
}

func runStore(ctx context.Context, sio *stdio, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		f := newFlags(commands["store"], sio)
		if _, err := f.parse(args, 1, -1); err != nil {
			return err
		}
	}
	switch args[0] {
	case "copy":
		return runStoreCopy(ctx, sio, args[1:])
	}
	return usageError("unknown store command %q (copy)", args[0])
}

// runStoreCopy moves everything from --from into --to, in one transaction
// of the destination, and prints each table's rows in both.
func runStoreCopy(ctx context.Context, sio *stdio, args []string) error {
	f := newFlags(commands["store"], sio)
	from := f.String("from", "", "the store to copy from: a SQLite file or a postgres:// URL (required)")
	to := f.String("to", "", "the store to copy into: a SQLite file (created if missing) or a postgres:// URL (required)")
	asJSON := f.Bool("json", false, "print the counts as JSON")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return usageError("copy needs --from and --to")
	}
	if !strings.Contains(*from, "://") {
		// Opening a missing file would create an empty store and copy
		// nothing: a mistyped path must say so.
		if _, err := os.Stat(*from); err != nil {
			return usageError("--from: %v", err)
		}
	}
	src, err := store.Open(ctx, *from)
	if err != nil {
		return fmt.Errorf("open %s: %w", *from, err)
	}
	defer src.Close()
	dst, err := store.Open(ctx, *to)
	if err != nil {
		return fmt.Errorf("open %s: %w", *to, err)
	}
	defer dst.Close()
	counts, err := store.Copy(ctx, dst, src)
	if errors.Is(err, store.ErrCopyMismatch) {
		return fmt.Errorf("%w\nnothing was written", err)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		return enc.Encode(struct {
			From   string             `json:"from"`
			To     string             `json:"to"`
			Tables []store.TableCount `json:"tables"`
		}{src.Location(), dst.Location(), counts})
	}
	fmt.Fprintf(sio.out, "copied %s\n    to %s\n\n", safeText(src.Location()), safeText(dst.Location()))
	tw := tabwriter.NewWriter(sio.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tsource\tdestination\t")
	var total int64
	for _, c := range counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", c.Table, c.From, c.To)
		total += c.From
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t\n", total, total)
	tw.Flush()
	return nil
}
