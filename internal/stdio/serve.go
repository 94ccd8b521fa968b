// Package stdio serves a go-sdk server over one newline-delimited
// JSON-RPC stream, the process's standard input and output, and keeps
// what else the process writes off that stream.
package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve serves s over one newline-delimited JSON-RPC stream, read from in
// and written to out, until in ends (nil) or ctx does (its error). The
// calls in flight when ctx ends have their contexts ended too, through a
// receiving middleware Serve adds to s, under recovers (the door's panic
// recovery); it stays on s, and would end the calls of a second stream
// with the first one's ctx, so s serves one stream.
func Serve(ctx context.Context, s *mcp.Server, in io.ReadCloser, out io.Writer, recovers func(mcp.Middleware) mcp.Middleware) error {
	// The go-sdk waits for the calls in flight when the session closes;
	// ending their contexts with ctx lets the handlers that honour it return.
	s.AddReceivingMiddleware(recovers(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(callCtx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			callCtx, cancel := context.WithCancel(callCtx)
			defer cancel()
			defer context.AfterFunc(ctx, cancel)()
			return next(callCtx, method, req)
		}
	}))
	err := s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{out}})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcpdoor: stdio: %w", err)
	}
	return nil
}

// nopWriteCloser keeps the stream's file open when the session closes:
// the restore of RedirectStdout still needs it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
