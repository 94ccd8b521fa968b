// Package recovery logs a recovered panic: of a goroutine the door starts
// of its own, which nothing else recovers, and of serving an MCP request,
// whose client then gets a JSON-RPC internal error that tells nothing of
// the cause.
package recovery

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Panicked logs the panic v of serving an MCP request of method, and
// returns the JSON-RPC error its client gets: the internal error (-32603),
// which tells nothing of the cause.
func Panicked(log *slog.Logger, method string, v any) error {
	log.Error("mcpdoor: serving an MCP request panicked; its client gets an internal error (-32603)",
		"method", method, "panic", v, "stack", string(debug.Stack()))
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("mcpdoor: internal error serving %s; the server logged it", method)}
}

// Logged logs a panic of a goroutine the door started for what, from the
// defer that recovers it: v is what recover returned, nil for none.
func Logged(log *slog.Logger, what string, v any) {
	if v != nil {
		log.Error("mcpdoor: "+what+" panicked", "panic", v, "stack", string(debug.Stack()))
	}
}
