package dispatch_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

type tenantKey struct{}

// toolRouter is a server's router: root middlewares that set a response
// header and a context value, an open tool, a tool behind an auth check and a
// GET-only route.
func toolRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Served-By", "tools")
			next.ServeHTTP(w, r)
		})
	}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, "acme")))
		})
	})
	r.Post("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"tenant":"`+r.Context().Value(tenantKey{}).(string)+`","pattern":"`+r.Pattern+`","body":`+string(body)+`}`)
	})
	r.With(requireBearer).Post("/secret", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "the secret")
	})
	r.Get("/status", func(w http.ResponseWriter, r *http.Request) {})
	return r
}

func TestReplay(t *testing.T) {
	rp := dispatch.NewReplay(toolRouter(), 0)
	for _, tc := range []struct {
		name       string
		call       dispatch.Call
		wantStatus int
		wantHeader http.Header
		wantBody   string
	}{
		{
			name:       "root middlewares run",
			call:       dispatch.Call{Path: "/echo", Body: []byte(`{"x": 1}`)},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{"X-Served-By": {"tools"}, "Content-Type": {"application/json"}},
			wantBody:   `{"tenant":"acme","pattern":"/echo","body":{"x": 1}}`,
		},
		{
			name:       "auth without Authorization",
			call:       dispatch.Call{Path: "/secret", Body: []byte(`{}`)},
			wantStatus: http.StatusUnauthorized,
			wantHeader: http.Header{"X-Served-By": {"tools"}, "Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}},
			wantBody:   "unauthorized\n",
		},
		{
			name:       "auth with a wrong Authorization",
			call:       dispatch.Call{Path: "/secret", Body: []byte(`{}`), Header: http.Header{"Authorization": {"Bearer guess"}}},
			wantStatus: http.StatusUnauthorized,
			wantHeader: http.Header{"X-Served-By": {"tools"}, "Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}},
			wantBody:   "unauthorized\n",
		},
		{
			name:       "auth with Authorization",
			call:       dispatch.Call{Path: "/secret", Body: []byte(`{}`), Header: http.Header{"Authorization": {"Bearer let-me-in"}}},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{"X-Served-By": {"tools"}},
			wantBody:   "the secret",
		},
		{
			name:       "no such route",
			call:       dispatch.Call{Path: "/nope", Body: []byte(`{}`)},
			wantStatus: http.StatusNotFound,
			wantHeader: http.Header{"X-Served-By": {"tools"}, "Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}},
			wantBody:   "404 page not found\n",
		},
		{
			name:       "GET-only route",
			call:       dispatch.Call{Path: "/status", Body: []byte(`{}`)},
			wantStatus: http.StatusMethodNotAllowed,
			wantHeader: http.Header{"X-Served-By": {"tools"}, "Allow": {"GET"}},
			wantBody:   "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rp.Dispatch(context.Background(), &tc.call)
			if resp.Status != tc.wantStatus || string(resp.Body) != tc.wantBody || resp.Truncated || resp.Panic != nil {
				t.Errorf("Dispatch = %d %q (truncated %v, panic %v), want %d %q",
					resp.Status, resp.Body, resp.Truncated, resp.Panic, tc.wantStatus, tc.wantBody)
			}
			if diff := cmp.Diff(tc.wantHeader, resp.Header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplayRequest: the router sees the call as the HTTP door would have
// sent it.
func TestReplayRequest(t *testing.T) {
	var got seen
	r := chi.NewRouter()
	r.Post("/send_email", recordRequest(&got))
	const body = `{"to" :"a@example.com",  "n":1}`
	resp := dispatch.NewReplay(r, 0).Dispatch(context.Background(), &dispatch.Call{
		Path:       "/send_email",
		Body:       []byte(body),
		Header:     http.Header{"Authorization": {"Bearer abc"}},
		Host:       "tools.example",
		RemoteAddr: "203.0.113.7:51234",
	})
	if resp.Status != http.StatusOK {
		t.Fatalf("status %d, body %q", resp.Status, resp.Body)
	}
	want := seen{
		Method: http.MethodPost, Path: "/send_email", RequestURI: "/send_email",
		Host: "tools.example", RemoteAddr: "203.0.113.7:51234",
		ContentType: "application/json", ContentLength: int64(len(body)), Proto: "HTTP/1.1",
		Header: http.Header{"Authorization": {"Bearer abc"}, "Content-Type": {"application/json"}},
		Body:   body, Pattern: "/send_email", RoutePattern: "/send_email",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the handler saw (-want +got):\n%s", diff)
	}
}

// TestReplayForeignRouteContext: a call dispatched from inside a chi handler
// (the /mcp endpoint) carries that request's chi route context. Replay must
// route the call afresh; the control shows that the router, handed that
// context as is, misroutes it.
func TestReplayForeignRouteContext(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mount func(r chi.Router, mcp http.HandlerFunc)
		// misrouted says how the router answers the call when it reuses
		// the /mcp request's route context.
		misrouted func(status int, pattern string) bool
	}{
		{
			name:  "mounted /mcp",
			mount: func(r chi.Router, mcp http.HandlerFunc) { r.Mount("/mcp", mcp) },
			misrouted: func(status int, _ string) bool {
				return status == http.StatusNotFound
			},
		},
		{
			name:  "/mcp route",
			mount: func(r chi.Router, mcp http.HandlerFunc) { r.Handle("/mcp", mcp) },
			misrouted: func(status int, pattern string) bool {
				return status != http.StatusOK || pattern != "/{tool}"
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			r := chi.NewRouter()
			r.Post("/{tool}", recordRequest(&got))
			rp := dispatch.NewReplay(r, 0)
			var resp *dispatch.Response
			var control *httptest.ResponseRecorder
			var controlPattern string
			tc.mount(r, func(w http.ResponseWriter, mcpReq *http.Request) {
				resp = rp.Dispatch(mcpReq.Context(), &dispatch.Call{Path: "/send_email", Body: []byte(`{}`)})
				viaReplay := got

				control = httptest.NewRecorder()
				req := httptest.NewRequestWithContext(mcpReq.Context(), http.MethodPost, "/send_email", strings.NewReader(`{}`))
				got = seen{}
				r.ServeHTTP(control, req)
				controlPattern = got.Pattern

				got = viaReplay
			})
			r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`)))

			if resp == nil {
				t.Fatal("the /mcp handler did not run")
			}
			if resp.Status != http.StatusOK || got.URLParam != "send_email" || got.Pattern != "/{tool}" || got.RoutePattern != "/{tool}" {
				t.Errorf("replay from /mcp: status %d, URLParam %q, Pattern %q, RoutePattern %q; want 200, send_email, /{tool}, /{tool}",
					resp.Status, got.URLParam, got.Pattern, got.RoutePattern)
			}
			if !tc.misrouted(control.Code, controlPattern) {
				t.Errorf("control: the router reusing /mcp's route context answered %d with pattern %q; this test no longer shows why Replay drops it",
					control.Code, controlPattern)
			}
		})
	}
}
