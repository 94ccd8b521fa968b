package autoexpose

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
)

// stdioDoor builds the Door ServeStdio would serve, for r and cfg.
func stdioDoor(t *testing.T, r chi.Router, cfg Config) *Door {
	t.Helper()
	b, err := newBuilder(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.stdio = true
	d, _, err := b.build(r)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestServeIO: the stdio session serves the same tools as the HTTP door,
// tokenless, and ends cleanly with its input (nil) or with its context
// (the context's error), leaving no goroutine behind.
func TestServeIO(t *testing.T) {
	leakcheck.Check(t)
	r := rolloutRouter(func(r chi.Router) { r.Method("POST", "/get_weather", Handler(getWeather)) })
	for _, end := range []string{"input", "context"} {
		t.Run(end, func(t *testing.T) {
			d := stdioDoor(t, r, enabled(MCPConfig{})) // a Door serves one stream
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			served := make(chan error, 1)
			go func() { served <- d.serveIO(ctx, inR, outW); outW.Close() }()
			lines := bufio.NewScanner(outR)
			for _, msg := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}`,
			} {
				io.WriteString(inW, msg+"\n")
			}
			lines.Scan() // initialize
			lines.Scan()
			want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"weather\":\"sunny in Oslo\"}"}],"structuredContent":{"weather":"sunny in Oslo"}}}`
			if got := lines.Text(); got != want {
				t.Errorf("tools/call:\n%s\nwant\n%s", got, want)
			}
			var wantErr error
			if end == "input" {
				inW.Close()
			} else {
				cancel()
				wantErr = context.Canceled
			}
			if err := <-served; !errors.Is(err, wantErr) {
				t.Errorf("serveIO returned %v, want %v", err, wantErr)
			}
			inW.Close()
			io.Copy(io.Discard, outR)
		})
	}
}

// TestServeIOOnce: a Door serves one stream. The calls of a second would
// run under the first's middleware, whose context ends with the first
// stream: serving it is refused instead, at once.
func TestServeIOOnce(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Method("POST", "/get_weather", Handler(getWeather)) })
	d := stdioDoor(t, r, enabled(MCPConfig{}))
	inR, inW := io.Pipe()
	inW.Close() // the client ends the first stream at once
	if err := d.serveIO(context.Background(), inR, io.Discard); err != nil {
		t.Fatalf("the first stream: %v", err)
	}
	inR, inW = io.Pipe()
	second := make(chan error, 1)
	go func() { second <- d.serveIO(context.Background(), inR, io.Discard) }()
	const want = "mcpdoor: stdio: this Door has served a stream already; serve each stream with a Door of its own (ServeStdio makes one per call)"
	select {
	case err := <-second:
		if err == nil || err.Error() != want {
			t.Errorf("a second stream: %v, want %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the Door serves a second stream, want %q", want)
		inW.Close()
		<-second
	}
}

// TestServeStdioRefuses: what cannot be served over stdio is an error, and
// nothing is redirected.
func TestServeStdioRefuses(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/a/b", ok) })
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"flag off", Config{}, "mcpdoor: ServeStdio: expose_tools_over_mcp is false; there is nothing to serve"},
		{"a refused route", enabled(MCPConfig{}), `mcpdoor: POST /a/b: tool name "a/b" does not match`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ServeStdio(context.Background(), r, c.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestServeIOCancelsCalls: when ctx ends, the call in flight sees its
// context end, and serveIO returns once it has.
func TestServeIOCancelsCalls(t *testing.T) {
	leakcheck.Check(t)
	started, ended := make(chan struct{}), make(chan string, 1)
	r := rolloutRouter(func(r chi.Router) {
		r.Post("/block", func(w http.ResponseWriter, r *http.Request) {
			close(started)
			select {
			case <-r.Context().Done():
				ended <- "cancelled"
			case <-time.After(time.Minute):
				ended <- "not cancelled"
			}
		})
	})
	d := stdioDoor(t, r, enabled(MCPConfig{}))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.serveIO(ctx, inR, outW); outW.Close() }()
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, outR); close(drained) }()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`,
	} {
		io.WriteString(inW, msg+"\n")
	}
	<-started
	cancel()
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Errorf("serveIO returned %v, want %v", err, context.Canceled)
	}
	if how := <-ended; how != "cancelled" {
		t.Errorf("the call in flight was %s", how)
	}
	inW.Close()
	<-drained
}
