package autoexpose

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// sessionIDHeader is the Streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// The session policies (see MCPConfig.Stateful and Exclusive):
//
//   - stateless (the default): every POST stands alone, so any replica with
//     the same secret can serve any call;
//   - stateful: sessions with Mcp-Session-Id, as many as clients open, each
//     closed after idle_timeout without a request;
//   - exclusive: stateful, with at most one live session (see slot).

// endpoint is the MCP endpoint's handler: the guard, the lifecycle, the
// session policy, then the go-sdk's Streamable HTTP handler.
func (d *Door) endpoint(m *MCPConfig) http.Handler {
	h := d.limitBody(d.inflight.track(d.newHandler(m)))
	if m.Exclusive {
		d.slot = &slot{
			alive:    d.live,
			end:      d.end,
			identify: d.identity,
			message:  exclusiveMessage(m.idleTimeout(), d.tokenHeader),
			maxBody:  d.maxBody,
			wait:     claimWait,
		}
		h = d.slot.wrap(h)
	}
	return d.withoutNewSession(newGuard(m).wrap(d.life.wrap(m.stateful(), h)))
}

// seconds writes a duration as a config would: 600s, 1.5s, 300ms.
func seconds(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}

// writeRPCError answers status with a JSON-RPC error response for the
// request id, given back byte for byte as JSON-RPC asks (null when the
// request had none, or one that is not a string or a number).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		id = json.RawMessage("null")
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(rpcErrorResponse{JSONRPC: "2.0", ID: id, Error: rpcError{code, message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(bytes.TrimSuffix(body.Bytes(), []byte("\n")))
}

// rpcErrorResponse is a JSON-RPC error response, fields in the usual order.
type rpcErrorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// stateful reports whether the endpoint serves sessions.
func (m *MCPConfig) stateful() bool { return m.Stateful || m.Exclusive }

// idleTimeout returns how long a stateful session may stay idle.
func (m *MCPConfig) idleTimeout() time.Duration {
	if m.IdleTimeout == 0 {
		return DefaultIdleTimeout
	}
	return m.IdleTimeout
}
