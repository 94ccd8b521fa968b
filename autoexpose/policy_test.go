package autoexpose

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/edge"
)

// TestClosedEndpoint: after Close the endpoint answers 503, at both paths;
// the HTTP door's routes answer as before.
func TestClosedEndpoint(t *testing.T) {
	r := rolloutRouter(func(r chi.Router) { r.Post("/t", ok) })
	door, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := door.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/mcp", "/mcp/"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
		if w.Code != http.StatusServiceUnavailable || w.Body.String() != edge.ClosedBody+"\n" || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("POST %s: %d %q %q", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("POST", "/t", nil))
	if w.Code != 200 || w.Body.String() != "{}" {
		t.Errorf("POST /t: %d %q", w.Code, w.Body)
	}
}
