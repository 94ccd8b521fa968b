package dispatch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// weatherEndpoint is a small tool handler: decode a JSON body, answer JSON.
func weatherEndpoint(w http.ResponseWriter, r *http.Request) {
	var in struct {
		City string `json:"city"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(struct {
		City  string  `json:"city"`
		TempC float64 `json:"temp_c"`
	}{in.City, 21.5})
}

type benchKey struct{}

// requireBearer is a header-reading auth check, the kind of middleware that
// sends a route to Replay.
func requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer let-me-in" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withValue puts a value in the request's context, as request-id or tenant
// middlewares do.
func withValue(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), benchKey{}, "tenant-1")))
	})
}

// benchRouter serves weatherEndpoint at POST /get_weather behind three
// middlewares.
func benchRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer, requireBearer, withValue)
	r.Post("/get_weather", weatherEndpoint)
	return r
}

func benchCall() *dispatch.Call {
	return &dispatch.Call{
		Path: "/get_weather",
		Body: []byte(`{"city":"Paris"}`),
		Header: http.Header{
			"Content-Type":  {"application/json"},
			"Authorization": {"Bearer let-me-in"},
		},
		Host:       "localhost",
		RemoteAddr: "127.0.0.1:50000",
	}
}

func runBench(b *testing.B, d dispatch.Dispatcher) {
	b.Helper()
	ctx := context.Background()
	c := benchCall()
	if resp := d.Dispatch(ctx, c); resp.Status != http.StatusOK {
		b.Fatalf("Dispatch: status %d, body %q", resp.Status, resp.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		d.Dispatch(ctx, c)
	}
}

// BenchmarkDirect: the endpoint alone, no middleware.
func BenchmarkDirect(b *testing.B) {
	r := chi.NewRouter()
	r.Post("/get_weather", weatherEndpoint)
	runBench(b, dispatch.NewDirect(http.HandlerFunc(weatherEndpoint), "/get_weather", r, 0))
}

// BenchmarkReplay3: the endpoint through the router and its three middlewares.
func BenchmarkReplay3(b *testing.B) {
	runBench(b, dispatch.NewReplay(benchRouter(), 0))
}

// BenchmarkDirectSkipping3: the same route as BenchmarkReplay3, dispatched
// direct (its middlewares skipped), with the endpoint and pattern chi.Walk
// reports for it.
func BenchmarkDirectSkipping3(b *testing.B) {
	r := benchRouter()
	var endpoint http.Handler
	var pattern string
	chi.Walk(r, func(method, route string, h http.Handler, mws ...func(http.Handler) http.Handler) error {
		if method == http.MethodPost && route == "/get_weather" {
			endpoint, pattern = h, route
			if len(mws) != 3 {
				b.Fatalf("chi.Walk: %d middlewares on %s, want 3", len(mws), route)
			}
		}
		return nil
	})
	if endpoint == nil {
		b.Fatal("chi.Walk: POST /get_weather not found")
	}
	runBench(b, dispatch.NewDirect(endpoint, pattern, r, 0))
}

// BenchmarkLargeResponse: a 1 MiB response written in 32 KiB chunks, the
// cost of growing the captured body.
func BenchmarkLargeResponse(b *testing.B) {
	chunk := make([]byte, 32<<10)
	d := dispatch.NewDirect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 32 {
			w.Write(chunk)
		}
	}), "/t", nil, 0)
	c := &dispatch.Call{Path: "/t", Body: []byte(`{}`)}
	b.ReportAllocs()
	for b.Loop() {
		d.Dispatch(context.Background(), c)
	}
}

// The REST routes of BenchmarkDispatch: two parameters, one with a
// regexp, called with a query; one at the top, one in a mounted router.
const (
	restPattern    = "/cities/{city}/forecast/{day:[0-9]+}"
	mountedPattern = "/api/cities/{city}/forecast/{day:[0-9]+}"
)

// dispatchRouter serves weatherEndpoint as the tool route POST
// /get_weather and as GET restPattern and GET mountedPattern, behind the
// three middlewares of benchRouter.
func dispatchRouter() chi.Router {
	r := benchRouter()
	r.Get(restPattern, weatherEndpoint)
	api := chi.NewRouter()
	api.Get("/cities/{city}/forecast/{day:[0-9]+}", weatherEndpoint)
	r.Mount("/api", api)
	return r
}

// BenchmarkDispatch compares a REST call (building its request URI from
// two path parameters and a query, checked against the router, then
// dispatching it) with a tool-route call, for direct and replayed
// dispatch, with the same endpoint: compare rest/X and mounted/X with
// tool/X.
func BenchmarkDispatch(b *testing.B) {
	r := dispatchRouter()
	values := map[string]string{"city": "Paris", "day": "3"}
	query := url.Values{"units": {"metric"}}
	tool := benchCall()
	for _, tc := range []struct {
		name    string
		pattern string // "" for the tool route
		direct  bool
	}{
		{"tool/direct", "", true},
		{"rest/direct", restPattern, true},
		{"mounted/direct", mountedPattern, true},
		{"tool/replay", "", false},
		{"rest/replay", restPattern, false},
		{"mounted/replay", mountedPattern, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			method, pattern := http.MethodPost, "/get_weather"
			if tc.pattern != "" {
				method, pattern = http.MethodGet, tc.pattern
			}
			var d dispatch.Dispatcher = dispatch.NewReplay(r, 0)
			if tc.direct {
				d = dispatch.NewDirect(endpointFor(b, r, method, pattern), pattern, r, 0)
			}
			tpl, err := dispatch.NewTemplate(method, pattern, r)
			if err != nil {
				b.Fatal(err)
			}
			call := func() *dispatch.Response {
				if tc.pattern == "" {
					return d.Dispatch(ctx, tool)
				}
				c := *tool
				if tc.direct { // as the MCP door does: Direct takes Fill's routing
					if err := tpl.Fill(&c, values, query); err != nil {
						b.Fatal(err)
					}
					return d.Dispatch(ctx, &c)
				}
				uri, err := tpl.Expand(values, query)
				if err != nil {
					b.Fatal(err)
				}
				c.Method, c.Path = method, uri
				return d.Dispatch(ctx, &c)
			}
			if resp := call(); resp.Status != http.StatusOK {
				b.Fatalf("Dispatch: status %d, body %q", resp.Status, resp.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}
