//go:build !race

package middleware

// raceEnabled: see middleware_race_test.go.
const raceEnabled = false
