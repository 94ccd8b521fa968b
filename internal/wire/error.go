package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// WriteError answers status with a JSON-RPC error response for the
// request id, given back byte for byte as JSON-RPC asks (null when the
// request had none, or one that is not a string or a number).
func WriteError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		id = json.RawMessage("null")
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(errorResponse{JSONRPC: "2.0", ID: id, Error: Error{code, message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(bytes.TrimSuffix(body.Bytes(), []byte("\n")))
}

// errorResponse is a JSON-RPC error response, fields in the usual order.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   Error           `json:"error"`
}

// Error is the error member of a JSON-RPC error response.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
