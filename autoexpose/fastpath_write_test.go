package autoexpose

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// errBroken is what a brokenWriter's writes fail with.
var errBroken = errors.New("connection reset by peer")

// A brokenWriter is a response whose connection is gone: every write fails.
type brokenWriter struct {
	header http.Header
	writes int // how many writes were tried
}

func (w *brokenWriter) Header() http.Header { return w.header }
func (w *brokenWriter) WriteHeader(int)     {}
func (w *brokenWriter) Write([]byte) (int, error) {
	w.writes++
	return 0, errBroken
}

// syncBuffer is a log's buffer, written from the request's goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFastPathWriteError: on the fast path, a write of the answer that
// fails ends the request and is logged: nothing more is written, and the
// context of a call whose notification failed to go out ends, so that its
// handler stops.
func TestFastPathWriteError(t *testing.T) {
	const v = "2025-11-25"
	handlerDone := make(chan error, 1)
	r := chi.NewRouter()
	r.Post("/echo", ok)
	r.Post("/report", func(w http.ResponseWriter, r *http.Request) {
		err := Progress(r.Context(), 1, 2, "half way")
		select {
		case <-r.Context().Done():
			if err == nil {
				err = errors.New("Progress returned nil, though its write failed")
			} else {
				err = nil
			}
		case <-time.After(30 * time.Second): // a guard against a hang, not a measure
			err = errors.New("the handler's context did not end")
		}
		handlerDone <- err
	})
	var log syncBuffer
	cfg := enabled(MCPConfig{})
	cfg.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	for _, c := range []struct {
		name, tool, meta string
	}{
		{"the result", "echo", ""},
		{"a notification", "report", `"progressToken":"p"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := door.fastCalls.Load()
			req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/mcp", strings.NewReader(callBody(v, "1", c.tool, `{}`, c.meta)))
			req.Header = callHeader(v, c.tool)
			w := &brokenWriter{header: http.Header{}}
			door.ServeHTTP(w, req)
			if door.fastCalls.Load() != before+1 {
				t.Fatal("the fast path did not serve the call")
			}
			if w.writes != 1 {
				t.Errorf("the answer tried %d writes, want 1: a failed write ends the request", w.writes)
			}
			want := `level=WARN msg="mcpdoor: fast path: writing the answer failed, which ended the request" tool=` + c.tool + ` err="connection reset by peer"`
			if !strings.Contains(log.String(), want) {
				t.Errorf("the log:\n%s\nwant a line with\n%s", log.String(), want)
			}
			if c.tool == "report" {
				if err := <-handlerDone; err != nil {
					t.Error(err)
				}
			}
		})
	}
}
