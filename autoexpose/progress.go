package autoexpose

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCall is what a handler's context carries of the MCP call it serves:
// the call, where its notifications go, its progress token, and what
// Elicit and Sample need (client.go). A request from the HTTP door carries
// none.
type mcpCall struct {
	req *mcp.CallToolRequest
	// to sends the call's Progress and Log, in the stream of its result.
	to notifier
	// session is the go-sdk session the call came in, which Elicit and
	// Sample send their requests on; nil on the fast path (fastpath.go),
	// whose calls are stateless.
	session       *mcp.ServerSession
	progressToken any
	version       string // the call's protocol version
	// capabilities are the client's capabilities as the fast path found
	// them in the request's _meta (the JSON text); nil when req carries
	// them.
	capabilities json.RawMessage
	// stateless: the call came over the door's stateless Streamable HTTP
	// transport, which cannot send the client a request. (A call over
	// another transport, to the server Door.Server returns, carries no HTTP
	// request.)
	stateless bool
	input     inputRound
	// traced is the context of the call's span, when the call's context
	// does not carry it (the fast path's, see dispatch); nil when it does.
	traced context.Context
	// rpcID is the call's JSON-RPC id as sent, where the transport gives
	// it (the fast path's); nil where it does not.
	rpcID []byte
}

// A notifier sends a tool call's notifications to the client that made it,
// in the same stream as the call's result: the go-sdk's session
// (*mcp.ServerSession), or the fast path's own stream (fastpath.go).
type notifier interface {
	NotifyProgress(ctx context.Context, params *mcp.ProgressNotificationParams) error
	//lint:ignore SA1019 see logLevels
	Log(ctx context.Context, params *mcp.LoggingMessageParams) error
}

type mcpCallKey struct{}

// newMCPCall returns the MCP call req that came through the go-sdk, for
// Progress, Log, Elicit and Sample; nil when req has no session to send
// to.
func (c *calls) newMCPCall(req *mcp.CallToolRequest) *mcpCall {
	if req.Session == nil {
		return nil
	}
	return &mcpCall{
		req:           req,
		to:            req.Session,
		session:       req.Session,
		progressToken: req.Params.GetProgressToken(),
		version:       req.ProtocolVersion(),
		stateless:     c.stateless && req.Extra != nil,
	}
}

// clientCapabilities returns what the client declared it can do, read as
// the go-sdk reads it.
func (c *mcpCall) clientCapabilities() *mcp.ClientCapabilities {
	if c.capabilities == nil {
		return c.req.ClientCapabilities()
	}
	meta := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: c.capabilities}}}
	return meta.ClientCapabilities()
}

// withMCPCall returns ctx carrying the call. It is a context value so that
// it reaches the handler through either dispatcher, and through the
// router's middlewares on a replay.
func withMCPCall(ctx context.Context, mc *mcpCall) context.Context {
	if mc == nil {
		return ctx
	}
	return context.WithValue(ctx, mcpCallKey{}, mc)
}

func mcpCallFrom(ctx context.Context) *mcpCall {
	c, _ := ctx.Value(mcpCallKey{}).(*mcpCall)
	return c
}

// Progress tells the MCP client that made the current tool call how far the
// call has got: a notifications/progress message with progress, total (0
// when unknown) and message. Use the handler's request context:
//
//	for i, day := range days {
//		autoexpose.Progress(r.Context(), float64(i+1), float64(len(days)), day)
//		...
//	}
//
// progress should increase with every call. Progress does nothing and
// returns nil when the client did not ask for progress (sent no progress
// token), and on the HTTP door, so a handler calls it without checking which
// door it serves. It returns an error only when the notification could not
// be sent, for instance because the call has ended (its timeout passed, or
// the client went away).
func Progress(ctx context.Context, progress, total float64, message string) error {
	c := mcpCallFrom(ctx)
	if c == nil || c.progressToken == nil {
		return nil
	}
	err := c.to.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: c.progressToken,
		Progress:      progress,
		Total:         total,
		Message:       message,
	})
	if err != nil {
		return fmt.Errorf("mcpdoor: progress: %w", err)
	}
	return nil
}

// logLevels are the MCP log levels (RFC 5424's), least severe first.
//
//lint:ignore SA1019 MCP logging is deprecated as of 2026-07-28 but kept for its window; Log serves older clients.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Log sends data (any JSON value: a string, or an object) to the MCP client
// that made the current tool call, as a notifications/message at level (one
// of debug, info, notice, warning, error, critical, alert, emergency), with
// the tool's name as the logger.
//
// The client decides what it receives: on a stateful door, nothing until it
// sets a level with logging/setLevel, then messages at that level or above;
// on a stateless door, which cannot remember a level, info and above (the
// go-sdk's default); on the 2026-07-28 protocol, what the log level in the
// call's _meta asks for, and nothing without one. Log does nothing and
// returns nil on the HTTP door. It returns an error for an unknown level (on
// either door), or when the message could not be sent.
//
// MCP deprecates logging as of protocol 2026-07-28 (SEP-2577); clients keep
// it during the deprecation window.
func Log(ctx context.Context, level string, data any) error {
	lvl := mcp.LoggingLevel(level) //lint:ignore SA1019 see logLevels
	if !slices.Contains(logLevels, lvl) {
		return fmt.Errorf("mcpdoor: log: unknown level %q (want debug, info, notice, warning, error, critical, alert or emergency)", level)
	}
	c := mcpCallFrom(ctx)
	if c == nil {
		return nil
	}
	//lint:ignore SA1019 logging stays in the protocol for the deprecation window, and clients use it
	err := c.to.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: c.req.Params.Name, Data: data})
	if err != nil {
		return fmt.Errorf("mcpdoor: log: %w", err)
	}
	return nil
}
