package autoexpose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/stdio"
)

// ServeStdio serves r's tools over MCP on the process's standard input and
// output, for one local client that starts the server itself (Claude Code
// after "claude mcp add weather -- ./weather -stdio", an IDE): the same
// tools, schemas, dispatch and results as Install, in one implicit session,
// with no session token needed (stdio carries no header for a token). It does not
// change r: nothing is mounted or wrapped, and the HTTP routes are not
// served. A process runs one ServeStdio at a time.
//
// Nothing else the process writes can corrupt the stream: while ServeStdio
// runs, the process's standard output (file descriptor 1, and so os.Stdout,
// fmt.Println and any library writing there) goes to standard error, and the
// MCP messages go to the original standard output alone. It is restored when
// ServeStdio returns. (On systems other than Linux, macOS and the BSDs only
// the os.Stdout variable is redirected.) Logs go to cfg.Logger, by default
// slog.Default(), which writes to standard error.
//
// ServeStdio returns nil when the client ends the session by closing the
// process's standard input, and an error from Install's checks when the
// tools cannot be served. When ctx ends first, the contexts of the calls in
// flight end too, and ServeStdio returns ctx's error once they have
// returned. A goroutine may then stay blocked reading standard input until
// it is closed: no portable way interrupts a read of a blocking stdin.
func ServeStdio(ctx context.Context, r chi.Router, cfg Config) error {
	if !cfg.ExposeToolsOverMCP {
		return errors.New("mcpdoor: ServeStdio: expose_tools_over_mcp is false; there is nothing to serve")
	}
	b, err := newBuilder(&cfg)
	if err != nil {
		return err
	}
	// Stdio carries no header for a session token: every call is the local
	// client's, in one implicit session.
	b.stdio = true
	d, _, err := b.build(r)
	if err != nil {
		return err
	}
	d.extend(&cfg)
	out, restore, err := stdio.RedirectStdout()
	if err != nil {
		return fmt.Errorf("mcpdoor: ServeStdio: %w", err)
	}
	defer restore()
	d.announce(true)
	return d.serveIO(ctx, io.NopCloser(os.Stdin), out)
}

// serveIO serves the Door's tools over one newline-delimited JSON-RPC
// stream until in ends (nil), or ctx does (its error). A Door serves one
// stream (see stdio.Serve).
func (d *Door) serveIO(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	if d.streamed.Swap(true) {
		return errors.New("mcpdoor: stdio: this Door has served a stream already; serve each stream with a Door of its own (ServeStdio makes one per call)")
	}
	return stdio.Serve(ctx, d.server, in, out, d.recovers)
}
