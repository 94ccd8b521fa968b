package autoexpose_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// requireKey is a check in a handler around the server's handler: every
// request needs Authorization: Bearer k, the MCP endpoint's included (and
// a replayed tool call, to which the Door forwards that header).
func requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "key required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withHeader is a client transport that sends header on every request.
type withHeader struct{ header http.Header }

func (t withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestWrapOuterGuardsEndpoint: under Wrap, Config.Outer stands in front of
// everything the Door serves, its MCP endpoint included, as it does under
// Install (where the endpoint is one of the router's routes): a client
// without the key Outer asks for cannot open a session, and one with it
// calls the tool.
func TestWrapOuterGuardsEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /get_time", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"time":"noon"}`) })
	cfg := autoexpose.Config{Name: "clock", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}
	cfg.CatchAll = map[string]autoexpose.Declaration{"get_time": {Description: "The time."}}
	cfg.Outer = requireKey
	door, err := autoexpose.Wrap(mux, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	srv := httptest.NewServer(door)
	defer srv.Close()

	for _, path := range []string{"/mcp", "/mcp/"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || string(body) != "key required\n" {
			t.Errorf("POST %s without the key: %d %q, want 401 %q", path, resp.StatusCode, body, "key required\n")
		}
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	ctx := context.Background()
	if cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil); err == nil {
		cs.Close()
		t.Errorf("a client without the key connected")
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             srv.URL + "/mcp",
		DisableStandaloneSSE: true,
		HTTPClient:           &http.Client{Transport: withHeader{http.Header{"Authorization": {"Bearer k"}}}},
	}, nil)
	if err != nil {
		t.Fatalf("a client with the key: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_time", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != `{"time":"noon"}` {
		t.Errorf("get_time: isError %v, %s", res.IsError, text)
	}
}

// TestOuterOnce: Install and Wrap call Config.Outer once, and serve and
// replay through what it returned, so that a middleware with state of its
// own (a counter here, a rate limiter in a server) sees the HTTP requests
// and the replayed tool calls alike.
func TestOuterOnce(t *testing.T) {
	for _, entry := range []string{"Install", "Wrap"} {
		t.Run(entry, func(t *testing.T) {
			made := 0
			var seen []string // the paths the one instance served
			cfg := autoexpose.Config{Name: "clock", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}
			cfg.MCP.SessionSecret = []string{"the outer tests' secret, 32 bytes or more"}
			cfg.Outer = func(next http.Handler) http.Handler {
				made++
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					seen = append(seen, r.Method+" "+r.URL.Path)
					next.ServeHTTP(w, r)
				})
			}
			getTime := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"time":"noon"}`) }
			var door *autoexpose.Door
			var err error
			if entry == "Install" {
				r := chi.NewRouter()
				r.Post("/get_time", getTime)
				door, err = autoexpose.Install(r, cfg)
			} else {
				mux := http.NewServeMux()
				mux.HandleFunc("POST /get_time", getTime)
				cfg.CatchAll = map[string]autoexpose.Declaration{"get_time": {Description: "The time."}}
				door, err = autoexpose.Wrap(mux, cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer door.Close()
			srv := httptest.NewServer(door)
			defer srv.Close()
			if resp, err := http.Post(srv.URL+"/get_time", "application/json", strings.NewReader(`{}`)); err != nil {
				t.Fatal(err)
			} else {
				resp.Body.Close()
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_time", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("get_time: %v %v", res, err)
			}
			var calls []string
			for _, p := range seen {
				if p == "POST /get_time" {
					calls = append(calls, p)
				}
			}
			if made != 1 || len(calls) != 2 || !slices.Contains(seen, "POST /mcp") {
				t.Errorf("Outer made %d times; its instance served %q; want once, POST /get_time over HTTP and replayed, and POST /mcp", made, seen)
			}
		})
	}
}
