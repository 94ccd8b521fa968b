package autoexposetest_test

import (
	"os"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// request a Server served, and every MCP session a Client opened, must end
// with its test.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m))
}
