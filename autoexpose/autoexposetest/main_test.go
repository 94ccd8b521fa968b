package autoexposetest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// request a Server served, and every MCP session a Client opened, must end
// with its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
