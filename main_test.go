package dialect

import (
	"os"
	"testing"

	"github.com/pattern-dialect/dialect/internal/mcp/mcptest"
)

// TestMain lets the test binary serve as an MCP server (mcptest) for the
// tests of [mcp] servers.
func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}
