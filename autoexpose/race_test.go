//go:build race

package autoexpose

// raceEnabled reports a build with the race detector, under which sync.Pool
// drops items at random and allocation figures mean little.
const raceEnabled = true
