package autoexpose

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCatalogURI: the catalog's URI is <name>://catalog with the name made
// a valid URI scheme, which the go-sdk requires of a resource's URI.
func TestCatalogURI(t *testing.T) {
	for name, want := range map[string]string{
		"weather":             "weather://catalog",
		"example_mcp_weather": "example-mcp-weather://catalog",
		"Shop_2":              "shop-2://catalog",
		"9lives":              "mcp-9lives://catalog",
		"-x_":                 "mcp--x-://catalog",
	} {
		got := catalogURI(name)
		u, err := url.Parse(got)
		if got != want || err != nil || u.Host != "catalog" {
			t.Errorf("catalogURI(%q) = %q (%v), want %q", name, got, err, want)
		}
	}
}

// TestCatalogPolicy: the catalog's session policy and limits follow the
// config, over HTTP and over stdio.
func TestCatalogPolicy(t *testing.T) {
	const defaultLimits = `{"max_body_bytes":4194304,"call_timeout_ms":0,"rate_limit":{"per_session":0,"burst":0}}`
	plain := func() chi.Router {
		r := chi.NewRouter()
		r.Method(http.MethodPost, "/get_weather", Handler(getWeather))
		return r
	}
	withRollout := func() chi.Router {
		return rolloutRouter(func(r chi.Router) { r.Method(http.MethodPost, "/get_weather", Handler(getWeather)) })
	}
	cases := []struct {
		name     string
		router   func() chi.Router
		mcp      MCPConfig
		stdio    bool
		sessions string
		limits   string
	}{
		{"a plain API", plain, MCPConfig{}, false,
			`{"policy":"stateless","idle_timeout_ms":0,"rollout":false,"token_required":false,"token_ttl_ms":0}`, defaultLimits},
		{"a rollout server", withRollout, MCPConfig{}, false,
			`{"policy":"stateless","idle_timeout_ms":0,"rollout":true,"token_header":"X-NeMo-Gym-Session-Token","token_required":true,"token_ttl_ms":0}`, defaultLimits},
		{"stateful, with every limit", withRollout, MCPConfig{
			Stateful: true, IdleTimeout: 90 * time.Second, MaxBodyBytes: 1000, CallTimeout: 1500 * time.Millisecond,
			RateLimit: RateLimit{PerSession: 2.5},
			Rollout:   Rollout{AllowTokenless: true, TokenHeader: "X-Run-Token", TokenTTL: time.Hour},
		}, false,
			`{"policy":"stateful","idle_timeout_ms":90000,"rollout":true,"token_header":"X-Run-Token","token_required":false,"token_ttl_ms":3600000}`,
			`{"max_body_bytes":1000,"call_timeout_ms":1500,"rate_limit":{"per_session":2.5,"burst":3,"by":"session"}}`},
		{"exclusive", plain, MCPConfig{Exclusive: true, RateLimit: RateLimit{PerSession: 1, Burst: 5, By: RateByClient}}, false,
			`{"policy":"exclusive","idle_timeout_ms":600000,"rollout":false,"token_required":false,"token_ttl_ms":0}`,
			`{"max_body_bytes":4194304,"call_timeout_ms":0,"rate_limit":{"per_session":1,"burst":5,"by":"client"}}`},
		{"stdio", withRollout, MCPConfig{Stateful: true}, true,
			`{"policy":"stdio","idle_timeout_ms":0,"rollout":true,"token_header":"X-NeMo-Gym-Session-Token","token_required":false,"token_ttl_ms":0}`, defaultLimits},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.mcp.Catalog = true
			var d *Door
			if c.stdio {
				d = stdioDoor(t, c.router(), enabled(c.mcp))
			} else {
				var err error
				if d, err = Install(c.router(), enabled(c.mcp)); err != nil {
					t.Fatal(err)
				}
				defer d.Close()
			}
			cat, refused := d.catalogFor(&mcp.ReadResourceRequest{})
			if refused != nil {
				t.Fatal(refused)
			}
			b, err := json.Marshal(cat)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Server   string
				Path     string
				Sessions json.RawMessage
				Limits   json.RawMessage
				Tools    []struct{ Name string }
			}
			json.Unmarshal(b, &got)
			wantPath := "/mcp"
			if c.stdio {
				wantPath = ""
			}
			if got.Server != "test" || got.Path != wantPath || len(got.Tools) != 1 || got.Tools[0].Name != "get_weather" {
				t.Errorf("catalog: %s", b)
			}
			if string(got.Sessions) != c.sessions {
				t.Errorf("sessions: %s\nwant       %s", got.Sessions, c.sessions)
			}
			if string(got.Limits) != c.limits {
				t.Errorf("limits: %s\nwant     %s", got.Limits, c.limits)
			}
		})
	}
}

// TestCatalogDefault: without mcp.catalog a plain API serves no resource:
// it does not declare resources, and answers resources/list method not
// found.
func TestCatalogDefault(t *testing.T) {
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", Handler(getWeather))
	d, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.catalog != nil {
		t.Error("a catalog without mcp.catalog")
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := d.server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if caps := cs.InitializeResult().Capabilities; caps.Resources != nil {
		t.Errorf("capabilities offer resources: %+v", caps.Resources)
	}
	// Resources are not declared, so their methods are not served.
	var rpcErr *jsonrpc.Error
	if list, err := cs.ListResources(t.Context(), nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("resources/list: %+v, %v; want method not found", list, err)
	}
}
