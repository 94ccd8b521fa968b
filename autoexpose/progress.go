package autoexpose

import (
	"context"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

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
	return mcpcall.Progress(ctx, progress, total, message)
}

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
	return mcpcall.Log(ctx, level, data)
}
