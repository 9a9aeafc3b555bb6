// Command floor is what `dialect run` of one action cannot do without: it
// opens the store, records one action's output (for @last.output) and one
// success (for the report), and closes it. The startup evaluation times it
// beside dialect run, so that the cost of the store shows apart from the
// runtime's own.
package main

import (
	"context"
	"log"
	"os"

	"github.com/pattern-dialect/dialect/store"
)

func main() {
	ctx := context.Background()
	st, err := store.Open(ctx, os.Getenv("DIALECT_DB"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if err := st.RecordOutput(ctx, store.Output{Verb: "calc", Status: "ok", Output: "4"}); err != nil {
		log.Fatal(err)
	}
	if err := st.Failures().RecordSuccess(ctx, "", 1); err != nil {
		log.Fatal(err)
	}
}
