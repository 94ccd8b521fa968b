//go:build race

package tests

// raceEnabled reports a build with the race detector, which makes the load
// tests run at a smaller size.
const raceEnabled = true
