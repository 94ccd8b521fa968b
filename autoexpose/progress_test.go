package autoexpose_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// TestProgressHTTPDoor: outside an MCP call (the HTTP door), Progress and Log
// do nothing and return nil; Log still refuses an unknown level.
func TestProgressHTTPDoor(t *testing.T) {
	var errs []error
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		errs = append(errs,
			autoexpose.Progress(r.Context(), 1, 2, "half way"),
			autoexpose.Log(r.Context(), "info", map[string]int{"step": 1}),
			autoexpose.Log(r.Context(), "verbose", "x"))
	})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/t", nil))
	if errs[0] != nil || errs[1] != nil {
		t.Errorf("Progress, Log: %v, %v; want nil, nil", errs[0], errs[1])
	}
	const want = `mcpdoor: log: unknown level "verbose" (want debug, info, notice, warning, error, critical, alert or emergency)`
	if errs[2] == nil || errs[2].Error() != want {
		t.Errorf("Log with an unknown level: %v, want %s", errs[2], want)
	}
}

// A long handler reports how far it has got. An MCP client that sent a
// progress token sees each step; over HTTP, Progress does nothing.
func ExampleProgress() {
	r := chi.NewRouter()
	r.Post("/import", func(w http.ResponseWriter, r *http.Request) {
		files := []string{"a.csv", "b.csv", "c.csv"}
		for i, f := range files {
			autoexpose.Progress(r.Context(), float64(i+1), float64(len(files)), "importing "+f)
			// ... import f ...
		}
		io.WriteString(w, `{"imported":3}`)
	})
}
