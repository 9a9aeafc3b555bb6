//go:build !race

package dialect

// raceEnabled: see middleware_race_test.go.
const raceEnabled = false
