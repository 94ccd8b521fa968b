// Package tests holds mcpdoor's end-to-end tests: the same requests through
// the HTTP door and the MCP door of real servers on 127.0.0.1, compared; real
// MCP clients (the go-sdk client, the official TypeScript SDK client); and
// the whole rollout contract.
//
// Tests that mostly wait, on another process (a Node client, a built server)
// or on a timer, call t.Parallel; the testing package runs them together
// once every other test has finished. A test that measures the whole
// process (goroutines, the heap, allocations) must not call it.
//
// The load tests run small unless MCPDOOR_LONG=1 is set (see longEnv).
package tests

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// door, client and listener a test starts must stop with it. Then it
// removes the binaries the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		removeBuilds()
		os.Exit(code)
	}))
}
