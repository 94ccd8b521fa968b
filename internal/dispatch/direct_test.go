package dispatch_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// seen is what a handler saw of its request.
type seen struct {
	Method, Path, RequestURI, Host, RemoteAddr string
	ContentType                                string
	ContentLength                              int64
	Proto                                      string
	Header                                     http.Header
	TLS                                        *tls.ConnectionState
	Body                                       string
	BodyErr                                    error
	URLParam, PathValue, Pattern, RoutePattern string
}

// ignoreTLS leaves seen.TLS out of a comparison: a *tls.ConnectionState has
// fields cmp cannot read; the tests compare the pointer.
var ignoreTLS = cmpopts.IgnoreFields(seen{}, "TLS")

// recordRequest is an endpoint that stores what it saw in *got and answers
// 200 "ok".
func recordRequest(got *seen) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		*got = seen{
			Method:        r.Method,
			Path:          r.URL.Path,
			RequestURI:    r.RequestURI,
			Host:          r.Host,
			RemoteAddr:    r.RemoteAddr,
			ContentType:   r.Header.Get("Content-Type"),
			ContentLength: r.ContentLength,
			Proto:         r.Proto,
			Header:        r.Header.Clone(),
			TLS:           r.TLS,
			Body:          string(body),
			BodyErr:       err,
			URLParam:      chi.URLParam(r, "tool"),
			PathValue:     r.PathValue("tool"),
			Pattern:       r.Pattern,
			RoutePattern:  chi.RouteContext(r.Context()).RoutePattern(),
		}
		io.WriteString(w, "ok")
	}
}

// endpointOf returns the endpoint and full pattern chi.Walk reports for the
// POST route whose pattern is pattern, as the detector finds them.
func endpointOf(t *testing.T, r chi.Routes, pattern string) http.Handler {
	t.Helper()
	var endpoint http.Handler
	chi.Walk(r, func(method, route string, h http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodPost && route == pattern {
			endpoint = h
		}
		return nil
	})
	if endpoint == nil {
		t.Fatalf("chi.Walk: no POST %s", pattern)
	}
	return endpoint
}

func TestDirectRequest(t *testing.T) {
	state := &tls.ConnectionState{ServerName: "tools.example", HandshakeComplete: true}
	const body = `{"b":1,   "a" :2 ,"z":[ ]}` // odd spacing and key order, kept as is
	var got seen
	d := dispatch.NewDirect(recordRequest(&got), "/send_email", nil, 0)
	resp := d.Dispatch(context.Background(), &dispatch.Call{
		Path: "/send_email",
		Body: []byte(body),
		Header: http.Header{
			"Authorization":   {"Bearer abc"},
			"X-Forwarded-For": {"198.51.100.1"},
		},
		Host:       "tools.example:8443",
		RemoteAddr: "203.0.113.7:51234",
		TLS:        state,
	})
	if resp.Status != http.StatusOK || string(resp.Body) != "ok" {
		t.Fatalf("Dispatch = %d %q, want 200 \"ok\"", resp.Status, resp.Body)
	}
	want := seen{
		Method:        http.MethodPost,
		Path:          "/send_email",
		RequestURI:    "/send_email",
		Host:          "tools.example:8443",
		RemoteAddr:    "203.0.113.7:51234",
		ContentType:   "application/json",
		ContentLength: int64(len(body)),
		Proto:         "HTTP/1.1",
		Body:          body,
		Pattern:       "/send_email",
		RoutePattern:  "/send_email",
		Header: http.Header{
			"Authorization":   {"Bearer abc"},
			"X-Forwarded-For": {"198.51.100.1"},
			"Content-Type":    {"application/json"},
		},
		TLS: state,
	}
	if got.TLS != state {
		t.Errorf("r.TLS = %p, want the call's %p", got.TLS, state)
	}
	if diff := cmp.Diff(want, got, ignoreTLS); diff != "" {
		t.Errorf("what the handler saw (-want +got):\n%s", diff)
	}
}

func TestDirectContentType(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		want   string
	}{
		{"nil header", nil, "application/json"},
		{"no content type", http.Header{"X-Other": {"1"}}, "application/json"},
		{"caller's kept", http.Header{"Content-Type": {"application/json; charset=utf-8"}}, "application/json; charset=utf-8"},
		{"caller's non-JSON kept", http.Header{"Content-Type": {"text/plain"}}, "text/plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			d := dispatch.NewDirect(recordRequest(&got), "/t", nil, 0)
			d.Dispatch(context.Background(), &dispatch.Call{Path: "/t", Body: []byte(`{}`), Header: tc.header})
			if got.ContentType != tc.want {
				t.Errorf("Content-Type = %q, want %q", got.ContentType, tc.want)
			}
			if n := len(got.Header["Content-Type"]); n != 1 {
				t.Errorf("%d Content-Type values, want 1", n)
			}
		})
	}
}

func TestDirectEmptyBody(t *testing.T) {
	var got seen
	d := dispatch.NewDirect(recordRequest(&got), "/t", nil, 0)
	d.Dispatch(context.Background(), &dispatch.Call{Path: "/t"})
	if got.Body != "" || got.BodyErr != nil || got.ContentLength != 0 {
		t.Errorf("body %q, err %v, ContentLength %d; want empty, nil, 0", got.Body, got.BodyErr, got.ContentLength)
	}
	// A request without a body says nothing of a body's type, as an HTTP
	// client's GET does not.
	if got.ContentType != "" {
		t.Errorf("Content-Type %q on a request without a body, want none", got.ContentType)
	}
}

// TestDirectPathParams: a catch-all route dispatched direct shows its handler
// the same URL parameter, path value and patterns as the router does.
func TestDirectPathParams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mount   func(r chi.Router, h http.HandlerFunc)
		pattern string
		path    string
	}{
		{"catch-all", func(r chi.Router, h http.HandlerFunc) { r.Post("/{tool}", h) }, "/{tool}", "/send_email"},
		{"catch-all with regexp", func(r chi.Router, h http.HandlerFunc) { r.Post("/{tool:[a-z_]+}", h) }, "/{tool:[a-z_]+}", "/send_email"},
		{"in a sub-router", func(r chi.Router, h http.HandlerFunc) {
			r.Route("/v1", func(r chi.Router) { r.Post("/{tool}", h) })
		}, "/v1/{tool}", "/v1/send_email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			r := chi.NewRouter()
			tc.mount(r, recordRequest(&got))
			call := &dispatch.Call{Path: tc.path, Body: []byte(`{}`)}

			direct := dispatch.NewDirect(endpointOf(t, r, tc.pattern), tc.pattern, r, 0)
			if resp := direct.Dispatch(context.Background(), call); resp.Status != http.StatusOK {
				t.Fatalf("direct: status %d, body %q", resp.Status, resp.Body)
			}
			viaDirect := got
			if viaDirect.URLParam != "send_email" || viaDirect.PathValue != "send_email" ||
				viaDirect.Pattern != tc.pattern || viaDirect.RoutePattern != tc.pattern || viaDirect.Path != tc.path {
				t.Errorf("direct: URLParam %q, PathValue %q, Pattern %q, RoutePattern %q, Path %q; want send_email, send_email, %s, %s, %s",
					viaDirect.URLParam, viaDirect.PathValue, viaDirect.Pattern, viaDirect.RoutePattern, viaDirect.Path, tc.pattern, tc.pattern, tc.path)
			}

			if resp := dispatch.NewReplay(r, 0).Dispatch(context.Background(), call); resp.Status != http.StatusOK {
				t.Fatalf("replay: status %d, body %q", resp.Status, resp.Body)
			}
			if diff := cmp.Diff(viaDirect, got); diff != "" {
				t.Errorf("direct and the router disagree (-direct +router):\n%s", diff)
			}
		})
	}
}

type ctxKey struct{}

func TestDirectContextValue(t *testing.T) {
	var got any
	d := dispatch.NewDirect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Context().Value(ctxKey{})
	}), "/t", nil, 0)
	d.Dispatch(context.WithValue(context.Background(), ctxKey{}, "from the caller"), &dispatch.Call{Path: "/t"})
	if got != "from the caller" {
		t.Errorf("handler's context value = %v, want the caller's", got)
	}
}

// blockUntilDone is an endpoint that closes started, waits for its request's
// context to end and answers with the context's error.
func blockUntilDone(started chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		http.Error(w, r.Context().Err().Error(), http.StatusServiceUnavailable)
	}
}

func TestCancellation(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func(h http.Handler) dispatch.Dispatcher
	}{
		{"direct", func(h http.Handler) dispatch.Dispatcher { return dispatch.NewDirect(h, "/slow", nil, 0) }},
		{"replay", func(h http.Handler) dispatch.Dispatcher {
			r := chi.NewRouter()
			r.Method(http.MethodPost, "/slow", h)
			return dispatch.NewReplay(r, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			d := tc.new(blockUntilDone(started))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan *dispatch.Response, 1)
			go func() { done <- d.Dispatch(ctx, &dispatch.Call{Path: "/slow"}) }()
			<-started
			cancel()
			select {
			case resp := <-done:
				if resp.Status != http.StatusServiceUnavailable || string(resp.Body) != "context canceled\n" {
					t.Errorf("Dispatch = %d %q, want 503 \"context canceled\\n\"", resp.Status, resp.Body)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the handler did not see the caller's cancellation")
			}
		})
	}
}
