package autoexpose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// limitBody answers an MCP request whose body is over mcp.max_body_bytes
// with HTTP 413 and a JSON-RPC error that names the limit, in place of the
// SDK's plain-text 413: a client reads it as the failure of that one call
// (the go-sdk client keeps its session, where a plain-text 413 ends it).
// The error carries the request's id when the body gives it early (the
// go-sdk client writes it first), and null otherwise.
//
// It reads at most the limit, as the SDK would. A body without a
// Content-Length (chunked) is read here, within the limit, and handed on.
func limitBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || (r.ContentLength >= 0 && r.ContentLength <= limit) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var mbe *http.MaxBytesError
		switch {
		case err == nil:
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			next.ServeHTTP(w, r)
		case errors.As(err, &mbe):
			writeRPCError(w, http.StatusRequestEntityTooLarge, leadingID(body), jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("request body exceeds the %d-byte limit (mcp.max_body_bytes)", limit))
		default:
			http.Error(w, "failed to read body", http.StatusBadRequest) // as the SDK says it
		}
	})
}

// leadingID returns the "id" of the JSON-RPC request that body starts, when
// it comes within the first few kilobytes, or nil (writeRPCError then
// answers null, as it does for an id that is not a string or a number).
func leadingID(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body[:min(len(body), 16<<10)]))
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

// unread puts what was read of r's body, read, back in front of the rest.
func unread(r *http.Request, read []byte) {
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(read), r.Body), r.Body}
}
