package edge

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLifecycleCloseEndsRequests: Close ends the context of each request
// in flight, of a stateless POST and of a stateful GET alike, and the
// endpoint answers 503 after.
func TestLifecycleCloseEndsRequests(t *testing.T) {
	l := NewLifecycle()
	started := make(chan struct{}, 2)
	h := l.Wrap(true)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
		if err := r.Context().Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: the request's context ended with %v, want context.Canceled", r.Method, err)
		}
	}))
	done := make(chan string, 2)
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		go func() {
			req := httptest.NewRequest(method, "/mcp", strings.NewReader("{}"))
			if method == http.MethodGet {
				req.Header.Set(SessionIDHeader, "s")
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			done <- method
		}()
	}
	<-started
	<-started
	closed := make(chan error, 1)
	go func() { closed <- l.Close(func() error { return nil }) }()
	for range 2 {
		<-done // a request whose context Close did not end would block here
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}")))
	if w.Code != http.StatusServiceUnavailable || w.Body.String() != ClosedBody+"\n" {
		t.Errorf("after Close: %d %q, want 503 %q", w.Code, w.Body, ClosedBody+"\n")
	}
	if n := len(l.live); n != 0 {
		t.Errorf("%d requests still held after Close", n)
	}
}
