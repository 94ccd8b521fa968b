// Package mcpcall holds what a tool handler's context carries of the MCP
// call it serves: the call itself (Call, put in the context by With), where
// its notifications go (Notifier), and the machinery behind the door's
// Progress, Log, Elicit, Sample and Roots, among it the 2026-07-28
// protocol's input requests (SEP-2322) and their signed request states
// (States). A request from the HTTP door carries no Call: each of those
// then does nothing, or fails with ErrNoClient.
package mcpcall

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Call is what a handler's context carries of the MCP call it serves:
// the call, where its notifications go, its progress token, and what
// Elicit and Sample need (ask.go). A request from the HTTP door carries
// none.
type Call struct {
	Req *mcp.CallToolRequest
	// To sends the call's Progress and Log, in the stream of its result.
	To Notifier
	// Session is the go-sdk session the call came in, which Elicit and
	// Sample send their requests on; nil on the fast path, whose calls are
	// stateless.
	Session       *mcp.ServerSession
	ProgressToken any
	Version       string // the call's protocol version
	// Capabilities are the client's capabilities as the fast path found
	// them in the request's _meta (the JSON text); nil when Req carries
	// them.
	Capabilities json.RawMessage
	// Stateless: the call came over the door's stateless Streamable HTTP
	// transport, which cannot send the client a request. (A call over
	// another transport, to the server Door.Server returns, carries no HTTP
	// request.)
	Stateless bool
	input     inputRound
	// Traced is the context of the call's span, when the call's context
	// does not carry it (the fast path's); nil when it does.
	Traced context.Context
	// RPCID is the call's JSON-RPC id as sent, where the transport gives
	// it (the fast path's); nil where it does not.
	RPCID []byte
}

// A Notifier sends a tool call's notifications to the client that made it,
// in the same stream as the call's result: the go-sdk's session
// (*mcp.ServerSession), or the fast path's own stream.
type Notifier interface {
	NotifyProgress(ctx context.Context, params *mcp.ProgressNotificationParams) error
	//lint:ignore SA1019 see LogLevels
	Log(ctx context.Context, params *mcp.LoggingMessageParams) error
}

type callKey struct{}

// New returns the MCP call req that came through the go-sdk, for Progress,
// Log, Elicit and Sample; nil when req has no session to send to.
// statelessDoor: the door serves stateless sessions, so a call that came
// over its Streamable HTTP transport (one with an HTTP request) cannot send
// the client a request.
func New(req *mcp.CallToolRequest, statelessDoor bool) *Call {
	if req.Session == nil {
		return nil
	}
	return &Call{
		Req:           req,
		To:            req.Session,
		Session:       req.Session,
		ProgressToken: req.Params.GetProgressToken(),
		Version:       req.ProtocolVersion(),
		Stateless:     statelessDoor && req.Extra != nil,
	}
}

// clientCapabilities returns what the client declared it can do, read as
// the go-sdk reads it.
func (c *Call) clientCapabilities() *mcp.ClientCapabilities {
	if c.Capabilities == nil {
		return c.Req.ClientCapabilities()
	}
	meta := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: c.Capabilities}}}
	return meta.ClientCapabilities()
}

// With returns ctx carrying the call. It is a context value so that it
// reaches the handler through either dispatcher, and through the router's
// middlewares on a replay.
func With(ctx context.Context, c *Call) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, c)
}

// From returns the call ctx carries, or nil.
func From(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Header returns the HTTP header an MCP request came with, or nil (stdio).
func Header(req mcp.Request) http.Header {
	if extra := req.GetExtra(); extra != nil {
		return extra.Header
	}
	return nil
}

// Progress sends the client of the call in ctx a notifications/progress
// message, as autoexpose.Progress documents; nothing without a call or a
// progress token.
func Progress(ctx context.Context, progress, total float64, message string) error {
	c := From(ctx)
	if c == nil || c.ProgressToken == nil {
		return nil
	}
	err := c.To.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.ProgressToken,
		Progress:      progress,
		Total:         total,
		Message:       message,
	})
	if err != nil {
		return fmt.Errorf("mcpdoor: progress: %w", err)
	}
	return nil
}

// LogLevels are the MCP log levels (RFC 5424's), least severe first.
//
//lint:ignore SA1019 MCP logging is deprecated as of 2026-07-28 but kept for its window; Log serves older clients.
var LogLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Log sends the client of the call in ctx a notifications/message at level,
// as autoexpose.Log documents; nothing without a call, and an error for an
// unknown level either way.
func Log(ctx context.Context, level string, data any) error {
	lvl := mcp.LoggingLevel(level) //lint:ignore SA1019 see LogLevels
	if !slices.Contains(LogLevels, lvl) {
		return fmt.Errorf("mcpdoor: log: unknown level %q (want debug, info, notice, warning, error, critical, alert or emergency)", level)
	}
	c := From(ctx)
	if c == nil {
		return nil
	}
	//lint:ignore SA1019 logging stays in the protocol for the deprecation window, and clients use it
	err := c.To.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: c.Req.Params.Name, Data: data})
	if err != nil {
		return fmt.Errorf("mcpdoor: log: %w", err)
	}
	return nil
}

// ProtocolVersion2026 is the first protocol version without sessions,
// whose requests each carry the protocol version, client information and
// capabilities in their _meta, and whose calls ask the client through
// input requests.
const ProtocolVersion2026 = "2026-07-28"
