package autoexpose

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/mcpdoor/mcpdoor/internal/fastpath"
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

// TestJSONAnswersWriteError: on the go-sdk path, the go-sdk's write of an
// event the door held and then passed on gets that write's error, not a
// success; and a JSON body that fails to go out after the go-sdk returned
// is logged.
func TestJSONAnswersWriteError(t *testing.T) {
	const (
		notification = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
		response     = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	)
	for _, c := range []struct {
		name, event string
		wantErr     bool   // the go-sdk's Write gets an error
		logged      string // the log line, "" for none
	}{
		{"a notification first", notification, true, ""},
		{"a response alone", response, false, `level=WARN msg="mcpdoor: writing the answer failed" err="connection reset by peer"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var writeErr error
			sdk := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, writeErr = io.WriteString(w, c.event)
			})
			var log syncBuffer
			h := fastpath.JSONAnswers(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: dropTime})), sdk)
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header = callHeader("2025-11-25", "")
			h.ServeHTTP(&brokenWriter{header: http.Header{}}, req)
			if (writeErr != nil) != c.wantErr {
				t.Errorf("the go-sdk's write returned %v, want an error: %v", writeErr, c.wantErr)
			}
			if got := log.String(); c.logged == "" && got != "" || !strings.Contains(got, c.logged) {
				t.Errorf("the log:\n%s\nwant %q", got, c.logged)
			}
		})
	}
}
