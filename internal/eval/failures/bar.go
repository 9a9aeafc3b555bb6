package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
)

// bar is a progress bar on a terminal; elsewhere it draws nothing.
type bar struct {
	w    io.Writer
	on   bool
	last time.Time
}

func newBar(w io.Writer) *bar {
	f, ok := w.(*os.File)
	return &bar{w: w, on: ok && isatty.IsTerminal(f.Fd())}
}

func (b *bar) update(done, total int) {
	if !b.on || total <= 0 || (done < total && time.Since(b.last) < 100*time.Millisecond) {
		return
	}
	b.last = time.Now()
	fill := 30 * done / total
	fmt.Fprintf(b.w, "\rinserting [%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", 30-fill), done, total)
}

func (b *bar) clear() {
	if b.on {
		io.WriteString(b.w, "\r\x1b[K")
	}
}
