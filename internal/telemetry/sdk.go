package telemetry

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpdoor/mcpdoor/internal/recovery"
)

// Served is what the go-sdk server's tracing needs of the door it serves.
type Served struct {
	// Known reports whether tool is one of the door's tools.
	Known func(tool string) bool
	// Request returns the HTTP request being served whose header h is,
	// nil for none.
	Request func(h http.Header) *http.Request
	// ID returns the JSON-RPC id (as sent) of the one request the HTTP
	// request whose header h is carries, nil for none: the go-sdk hands its
	// middleware no way to read it.
	ID func(h http.Header) []byte
	// Stateful: a session lives past its initialize request (stateful
	// Streamable HTTP, or stdio), and its duration is measured.
	Stateful bool
}

// Middleware is the go-sdk server's outermost receiving middleware: it
// traces and measures each request and notification the go-sdk serves
// (the fast path traces its own, with Start and End), and each stateful
// session's duration.
func (t *Telemetry) Middleware(s Served) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			tool, name := "", ""
			m := metaOf(req)
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && method == "tools/call" {
				tool = p.Name
				if !s.Known(tool) {
					tool, name = valueOther, method
				}
			}
			var meta propagation.TextMapCarrier
			if m != nil {
				meta = metaCarrier(m)
			}
			var header http.Header // nil over stdio
			if extra := req.GetExtra(); extra != nil {
				header = extra.Header
			}
			var ambient *http.Request
			var carrier propagation.TextMapCarrier
			if header != nil {
				ambient = s.Request(header)
				carrier = propagation.HeaderCarrier(header)
			}
			var id []byte // read now: it goes with the HTTP request, which ends as the answer is written
			if header != nil && !strings.HasPrefix(method, "notifications/") {
				id = s.ID(header)
			}
			ctx, op := t.Start(ctx, name, method, tool, meta, carrier, ambient)
			res, err := next(ctx, method, req)
			ss, _ := req.GetSession().(*mcp.ServerSession)
			op.Describe(id, sessionID(ss), requestProtocol(method, m, res, ss, header))
			var errType, message string
			switch {
			case err != nil:
				errType, message = RPCFailure(&op, err)
			case tool != "":
				r, _ := res.(*mcp.CallToolResult)
				errType, message = t.ToolFailure(r)
			}
			t.End(ctx, &op, errType, message)
			if method == "initialize" && err == nil && ss != nil && s.Stateful {
				t.watchSession(ctx, ss, op.protocol)
			}
			return res, err
		}
	}
}

// watchSession records the duration of a stateful session (or stdio's)
// that has just initialized, when it ends.
func (t *Telemetry) watchSession(ctx context.Context, ss *mcp.ServerSession, protocol string) {
	if !t.sessions.Enabled(ctx) {
		return
	}
	start := time.Now()
	attrs := metric.WithAttributes(attrProtocol.String(protocol), attrTransport.String(t.transport))
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer func() { recovery.Logged(t.log, "recording a session's duration", recover()) }()
		ss.Wait()
		t.sessions.Record(ctx, time.Since(start).Seconds(), attrs)
	}()
}

// sessionID is the MCP session id of ss: "" for none, or a stateless
// request's.
func sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
}

// requestProtocol returns the protocol version a request of method was
// served under, as protocolLabel records it: its own (_meta, from
// 2026-07-28 on), the one its initialize settled, its session's, else its
// HTTP request's header; the first of them the go-sdk knows, else
// valueOther when any was sent.
func requestProtocol(method string, meta map[string]any, res mcp.Result, ss *mcp.ServerSession, header http.Header) string {
	other := ""
	if v, ok := meta[mcp.MetaKeyProtocolVersion].(string); ok {
		if v = protocolLabel(v); v != valueOther {
			return v
		}
		other = valueOther
	}
	// A method that failed has no result, though the go-sdk hands on a
	// typed nil for one.
	if r, ok := res.(*mcp.InitializeResult); ok && r != nil && method == "initialize" && r.ProtocolVersion != "" {
		return protocolLabel(r.ProtocolVersion)
	}
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ProtocolVersion != "" {
			if v := protocolLabel(p.ProtocolVersion); v != valueOther {
				return v
			}
			other = valueOther
		}
	}
	if v := protocolLabel(header.Get("Mcp-Protocol-Version")); v != "" {
		return v
	}
	return other
}

// metaOf returns a request's params._meta, or nil.
func metaOf(req mcp.Request) map[string]any {
	params := req.GetParams()
	if params == nil {
		return nil
	}
	if v := reflect.ValueOf(params); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil // a request without params
	}
	return params.GetMeta()
}

// metaCarrier reads a request's params._meta as a propagator's carrier:
// the W3C keys hold strings.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
