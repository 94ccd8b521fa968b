package replay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/replay"
)

// A route of a router, served in process: the handler reads the body an
// HTTP client would send, and the Response holds what that client would get.
func ExampleDo() {
	r := chi.NewRouter()
	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
		args, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"asked":%s,"temp_c":21.5}`, args)
	})
	req := httptest.NewRequest(http.MethodPost, "/get_weather", strings.NewReader(`{"city":"Paris"}`))
	resp := replay.Do(r, req, 0)
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Println(string(resp.Body))
	// Output:
	// 200 application/json
	// {"asked":{"city":"Paris"},"temp_c":21.5}
}

// TestDo: what Do captures of a handler's answer: the status and header as
// of WriteHeader, the body up to the limit, a panic.
func TestDo(t *testing.T) {
	var writeErr error
	r := chi.NewRouter()
	r.Post("/teapot", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Before", "1")
		w.WriteHeader(http.StatusTeapot)
		w.Header().Set("X-After", "1") // too late for a client, and for Do
		io.WriteString(w, "short and stout")
	})
	r.Post("/big", func(w http.ResponseWriter, r *http.Request) {
		_, writeErr = io.WriteString(w, "0123456789")
	})
	r.Post("/boom", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	r.Post("/{name}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+chi.URLParam(r, "name")) })

	post := func(path string) *http.Request { return httptest.NewRequest(http.MethodPost, path, nil) }

	resp := replay.Do(r, post("/teapot"), 0)
	if resp.Status != http.StatusTeapot || resp.Header.Get("X-Before") != "1" || resp.Header.Get("X-After") != "" || string(resp.Body) != "short and stout" || resp.Truncated {
		t.Errorf("teapot: %+v", resp)
	}

	resp = replay.Do(r, post("/big"), 4)
	if resp.Status != 200 || string(resp.Body) != "0123" || !resp.Truncated || !errors.Is(writeErr, dispatch.ErrResponseTooLarge) {
		t.Errorf("over the limit: %d %q truncated %v, Write's error %v", resp.Status, resp.Body, resp.Truncated, writeErr)
	}
	resp = replay.Do(r, post("/big"), -1) // the default limit, as 0
	if string(resp.Body) != "0123456789" || resp.Truncated || writeErr != nil {
		t.Errorf("a negative limit: %q truncated %v, Write's error %v", resp.Body, resp.Truncated, writeErr)
	}

	resp = replay.Do(r, post("/boom"), 0)
	if resp.Status != 500 || resp.Panic != "boom" || string(resp.Body) != "Internal Server Error" {
		t.Errorf("panic: %d %q panic %v", resp.Status, resp.Body, resp.Panic)
	}

	// A request that carries an outer router's route context is routed by
	// its path, as a server would route it.
	outer := chi.NewRouteContext()
	outer.RoutePath = "/teapot" // where the outer router would send it on
	req := post("/ana")
	req = req.WithContext(context.WithValue(req.Context(), chi.RouteCtxKey, outer))
	if resp := replay.Do(r, req, 0); string(resp.Body) != "hello ana" {
		t.Errorf("with an outer route context: %d %q", resp.Status, resp.Body)
	}
}
