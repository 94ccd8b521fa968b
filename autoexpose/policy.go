package autoexpose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// sessionIDHeader is the Streamable HTTP transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// ExclusiveErrorCode is the JSON-RPC error code of the 409 that an
// exclusive server answers to a new session while another one is live.
const ExclusiveErrorCode = -32000

// The session policies (see MCPConfig.Stateful and Exclusive):
//
//   - stateless (the default): every POST stands alone, so any replica with
//     the same secret can serve any call;
//   - stateful: sessions with Mcp-Session-Id, as many as clients open, each
//     closed after idle_timeout without a request;
//   - exclusive: stateful, with at most one live session. A POST without
//     Mcp-Session-Id while that session is live gets 409 and a JSON-RPC
//     error that says what to do (exclusiveMessage). The slot frees when
//     the session ends: its client's DELETE, the idle timeout, or
//     Door.Close.

// endpoint is the MCP endpoint's handler: the guard, the lifecycle, the
// session policy, then the go-sdk's Streamable HTTP handler.
func (d *Door) endpoint(m *MCPConfig) http.Handler {
	h := d.limitBody(d.inflight.track(d.newHandler(m)))
	if m.Exclusive {
		s := &slot{alive: d.live}
		h = s.wrap(h, d.maxBody, exclusiveMessage(m.idleTimeout()))
	}
	return d.withoutNewSession(newGuard(m).wrap(d.life.wrap(m.stateful(), h)))
}

// live reports whether the session with this id is live: the go-sdk lists
// a session until it has ended, however it ended.
func (d *Door) live(id string) bool {
	for ss := range d.server.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// exclusiveMessage is the 409's message: what happened, and what to do.
func exclusiveMessage(idle time.Duration) string {
	return fmt.Sprintf("this MCP server is exclusive and another session is live; retry once that session ends "+
		"(its client sends DELETE with its Mcp-Session-Id) or has been idle for %s (mcp.idle_timeout)", seconds(idle))
}

// seconds writes a duration as a config would: 600s, 1.5s, 300ms.
func seconds(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}

// A slot is the one session an exclusive server admits. It is claimed
// before the go-sdk creates a session, so two initializes at the same
// instant cannot both get in, and it learns the session's end lazily: the
// next initialize asks the go-sdk whether the holder is still live. No
// goroutine watches it.
type slot struct {
	alive func(id string) bool

	mu      sync.Mutex
	holder  string // the live session's id, or ""
	pending bool   // an initialize is being served
}

// claim takes the free slot for an initialize.
func (s *slot) claim() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busyLocked() {
		return false
	}
	s.pending = true
	return true
}

// settle ends a claim: the slot is held by the session id the initialize
// created, if that session is live, and free otherwise (the initialize
// failed, or its session has already ended).
func (s *slot) settle(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = false
	if id != "" && s.alive(id) {
		s.holder = id
	}
}

// busy reports whether a session is live or being initialized.
func (s *slot) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busyLocked()
}

func (s *slot) busyLocked() bool {
	if s.pending {
		return true
	}
	if s.holder != "" && !s.alive(s.holder) {
		s.holder = ""
	}
	return s.holder != ""
}

// wrap serves next under the slot. Only a POST without Mcp-Session-Id can
// open a session: an initialize claims the slot, anything else (a ping, the
// newer protocol's server/discover) passes while the slot is free, and every
// such POST gets the 409 while it is taken. Requests of the live session
// carry its id and pass.
func (s *slot) wrap(next http.Handler, maxBody int64, message string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		// Peek at the message; the go-sdk reads the whole body again, and
		// answers a bad or oversized one itself.
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &msg) // a batch, or not JSON: no id, no method
		if msg.Method != "initialize" {
			if s.busy() {
				writeExclusive(w, msg.ID, message)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if !s.claim() {
			writeExclusive(w, msg.ID, message)
			return
		}
		defer func() { s.settle(w.Header().Get(sessionIDHeader)) }()
		next.ServeHTTP(w, r)
	})
}

// writeExclusive answers 409 with a JSON-RPC error for the request id.
func writeExclusive(w http.ResponseWriter, id json.RawMessage, message string) {
	writeRPCError(w, http.StatusConflict, id, ExclusiveErrorCode, message)
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
