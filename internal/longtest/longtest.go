// Package longtest gates the tests that a plain go test skips and CI runs:
// those that build or run the go command in a subprocess, and those that
// push tens of MiB through a handler. They run when MCPDOOR_LONG=1 is set,
// as scripts/test.sh sets it, so that go test ./... of the library stays
// a quick run.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long tests on: MCPDOOR_LONG=1.
const Env = "MCPDOOR_LONG"

// On reports whether the long tests run: MCPDOOR_LONG=1 and no -short.
func On() bool { return !testing.Short() && os.Getenv(Env) == "1" }

// Skip skips t unless the long tests run, saying what makes it long.
func Skip(t testing.TB, why string) {
	t.Helper()
	if !On() {
		t.Skip(why + "; set " + Env + "=1 to run it")
	}
}
