package autoexpose

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCall is what a handler's context carries of the MCP call it serves:
// where its notifications go, and its progress token. A request from the
// HTTP door carries none.
type mcpCall struct {
	to            notifier
	progressToken any
	tool          string
}

// A notifier sends a tool call's notifications to the client that made it,
// in the same stream as the call's result: the go-sdk's session
// (*mcp.ServerSession), or the fast path's own stream (fastpath.go).
type notifier interface {
	NotifyProgress(ctx context.Context, params *mcp.ProgressNotificationParams) error
	//lint:ignore SA1019 see logLevels
	Log(ctx context.Context, params *mcp.LoggingMessageParams) error
}

// sessionNotifier returns the notifier of a call that came through the
// go-sdk: its session, or nil when it has none.
func sessionNotifier(req *mcp.CallToolRequest) notifier {
	if req.Session == nil {
		return nil
	}
	return req.Session
}

type mcpCallKey struct{}

// withMCPCall returns ctx carrying the call, for Progress and Log. It is a
// context value so that it reaches the handler through either dispatcher,
// and through the router's middlewares on a replay.
func withMCPCall(ctx context.Context, to notifier, req *mcp.CallToolRequest, tool string) context.Context {
	if to == nil {
		return ctx
	}
	return context.WithValue(ctx, mcpCallKey{}, &mcpCall{to: to, progressToken: req.Params.GetProgressToken(), tool: tool})
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
	err := c.to.Log(ctx, &mcp.LoggingMessageParams{Level: lvl, Logger: c.tool, Data: data})
	if err != nil {
		return fmt.Errorf("mcpdoor: log: %w", err)
	}
	return nil
}
