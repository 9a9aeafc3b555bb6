//go:build race

package middleware

// raceEnabled: the race detector slows the every-cut and keep-alive tests
// several times over; they then cover a sample of their cases.
const raceEnabled = true
