package sdkserver

import (
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// Under protocol 2025-03-26 a POST's body may be a JSON-RPC batch, and the
// go-sdk decodes every message of it, then runs each request in a
// goroutine of its own, all at once. LimitBatch refuses a batch of more
// than mcp.max_batch messages before the go-sdk decodes it, so one request
// makes at most that many goroutines.

// LimitBatch answers a POST whose body is a JSON-RPC batch of more than max
// messages with HTTP 413 and a JSON-RPC error (-32600) that names
// mcp.max_batch; any other request goes to next with its body as it came.
// It looks at the body edge.ReadBodies has read.
func LimitBatch(max int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		if n := BatchSize(edge.HeldBody(r)); n > max {
			wire.WriteError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("mcpdoor: a JSON-RPC batch of %d messages is over the limit of %d (mcp.max_batch); send at most %d messages in one request", n, max, max))

			return
		}
		next.ServeHTTP(w, r)
	})
}

// BatchSize returns the number of values in the JSON array that body is,
// counted as far as the array reads (the go-sdk refuses a malformed one),
// or 0 when body is not an array.
func BatchSize(body []byte) int {
	i := wire.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '[' {
		return 0
	}
	n := 0
	for i = wire.SkipSpace(body, i+1); i < len(body) && body[i] != ']'; {
		end := wire.SkipValue(body, i)
		if end <= i {
			break
		}
		n++
		if i = wire.SkipSpace(body, end); i < len(body) && body[i] == ',' {
			i = wire.SkipSpace(body, i+1)
		}
	}
	return n
}
