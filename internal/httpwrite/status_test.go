package httpwrite

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"testing"
)

// TestStatusWriter: the status recorded is the first final one a handler
// answers, informational statuses aside, or 200 at its first Write; what
// the handler writes goes out unchanged, the 1xx included.
func TestStatusWriter(t *testing.T) {
	for _, c := range []struct {
		name   string
		handle func(w http.ResponseWriter)
		want   int
	}{
		{"nothing written", func(http.ResponseWriter) {}, 0},
		{"a body alone", func(w http.ResponseWriter) { io.WriteString(w, "ok") }, 200},
		{"a status", func(w http.ResponseWriter) { w.WriteHeader(http.StatusTeapot) }, 418},
		{"two statuses", func(w http.ResponseWriter) { w.WriteHeader(201); w.WriteHeader(500) }, 201},
		{"103 Early Hints then 200", func(w http.ResponseWriter) { w.WriteHeader(http.StatusEarlyHints); w.WriteHeader(200) }, 200},
		{"100 Continue then a body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusContinue); io.WriteString(w, "ok") }, 200},
		{"102 then 404", func(w http.ResponseWriter) { w.WriteHeader(http.StatusProcessing); w.WriteHeader(404) }, 404},
		{"101 Switching Protocols", func(w http.ResponseWriter) { w.WriteHeader(http.StatusSwitchingProtocols) }, 101},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			sw := &StatusWriter{ResponseWriter: rec}
			c.handle(sw)
			if sw.Status != c.want {
				t.Errorf("Status = %d, want %d", sw.Status, c.want)
			}
			if http.NewResponseController(sw).Flush() != nil {
				t.Error("the writer underneath is not reached through Unwrap")
			}
		})
	}
}

// TestStatusWriterWire: over a real connection, a client sees the 103 and
// then the 200 the handler wrote through the writer.
func TestStatusWriterWire(t *testing.T) {
	var recorded int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &StatusWriter{ResponseWriter: w}
		sw.Header().Set("Link", "</a.css>; rel=preload")
		sw.WriteHeader(http.StatusEarlyHints)
		sw.Header().Del("Link")
		io.WriteString(sw, "done")
		recorded = sw.Status
	}))
	defer srv.Close()
	var hints []int
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req = req.WithContext(httptraceWith(req, func(code int) { hints = append(hints, code) }))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "done" || len(hints) != 1 || hints[0] != 103 || recorded != 200 {
		t.Errorf("got %d %q after informational %v, recorded %d; want 200 \"done\" after [103], recorded 200", resp.StatusCode, body, hints, recorded)
	}
}

// httptraceWith returns req's context with a trace that tells got each
// informational status the client reads.
func httptraceWith(req *http.Request, got func(code int)) context.Context {
	return httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
			got(code)
			return nil
		},
	})
}
