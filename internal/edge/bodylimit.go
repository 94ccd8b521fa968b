package edge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// ReadBodies is the step that reads an MCP request's body whole, before
// any other step reads it, as package bodies reads it: into memory that
// grows with the bytes received, within limit (mcp.max_body_bytes) and p,
// the Door's budget (mcp.max_body_memory) and deadline (mcp.body_timeout).
// The steps behind it, the go-sdk included, read the body from that memory
// (bodies.Held), where they read it at all. A refusal is a JSON-RPC error,
// which a client reads as the failure of that one call (the go-sdk client
// keeps its session, where a plain-text answer ends it):
//
//   - a body over mcp.max_body_bytes gets HTTP 413 naming the limit, in place
//     of the SDK's plain-text 413, with the request's id when the body gives
//     it early (the go-sdk client writes it first), and null otherwise. A body
//     that declares more is refused after its first bytes, for the id;
//   - a body the budget has no room for gets HTTP 503 with Retry-After,
//     before any of it is read when it declares its length;
//   - a body that has not come whole by the deadline gets HTTP 408.
func ReadBodies(limit int64, p *bodies.Policy) func(http.Handler) http.Handler {
	tooLarge := fmt.Sprintf("request body exceeds the %d-byte limit (mcp.max_body_bytes)", limit)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			if r.ContentLength > limit { // refused unread, but for where its id may be
				bodies.Deadline(w, r, p) // kept: see bodies.Deadline
				head, _ := io.ReadAll(io.LimitReader(r.Body, idScan))
				wire.WriteError(w, http.StatusRequestEntityTooLarge, leadingID(head), jsonrpc.CodeInvalidRequest, tooLarge)
				return
			}
			body, release, err := bodies.Read(w, r, limit, p)
			defer release()
			var mbe *http.MaxBytesError
			switch {
			case err == nil:
				r.Body, r.ContentLength = bodies.Held(body), int64(len(body))
				next.ServeHTTP(w, r)
			case errors.As(err, &mbe):
				wire.WriteError(w, http.StatusRequestEntityTooLarge, leadingID(body), jsonrpc.CodeInvalidRequest, tooLarge)
			case errors.Is(err, bodies.ErrBusy):
				w.Header().Set("Retry-After", bodies.RetryAfter)
				wire.WriteError(w, http.StatusServiceUnavailable, nil, sessionCapCode, p.BusyText())
			case errors.Is(err, bodies.ErrTimeout):
				wire.WriteError(w, http.StatusRequestTimeout, nil, jsonrpc.CodeInvalidRequest, p.TimeoutText())
			default:
				http.Error(w, "failed to read body", http.StatusBadRequest) // as the SDK says it
			}
		})
	}
}

// idScan is how much of a body leadingID looks at.
const idScan = 16 << 10

// HeldBody returns the body of r, which ReadBodies has read, without
// reading it; for a body it did not read (none), what r.Body reads, put
// back in front of the rest.
func HeldBody(r *http.Request) []byte {
	if b, ok := bodies.Bytes(r.Body); ok {
		return b
	}
	if r.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	bodies.Unread(r, b)
	return b
}

// leadingID returns the "id" of the JSON-RPC request that body starts, when
// it comes within the first few kilobytes, or nil (wire.WriteError then
// answers null, as it does for an id that is not a string or a number).
func leadingID(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body[:min(len(body), idScan)]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}
