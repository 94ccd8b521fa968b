package autoexpose

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// userAgent is an http.RoundTripper that sends every request with the
// User-Agent an agent sets.
type userAgent struct {
	name string
	next http.RoundTripper
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.name)
	return u.next.RoundTrip(r)
}

// TestForwardUserAgent: by default a tool call reaches its route with the
// MCP client's User-Agent beside its Authorization, direct and replayed, so
// that what the route records of its client (a session label, a stored
// user agent) is the same over MCP as over HTTP.
func TestForwardUserAgent(t *testing.T) {
	whoami := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"user_agent":%q,"authorization":%q}`, r.UserAgent(), r.Header.Get("Authorization"))
	}
	r := chi.NewRouter()
	r.Post("/whoami", whoami)
	r.With(customMiddleware).Post("/whoami_replayed", whoami)
	door, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(door)
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:             srv.URL + "/mcp",
		DisableStandaloneSSE: true,
		HTTPClient:           &http.Client{Transport: userAgent{"claude-code/2.1", authorized{http.DefaultTransport}}},
	}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"whoami", "whoami_replayed"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		const want = `{"user_agent":"claude-code/2.1","authorization":"Bearer agent"}`
		if got := res.Content[0].(*mcp.TextContent).Text; got != want {
			t.Errorf("%s answered %s\nwant %s", name, got, want)
		}
	}
}

// authorized sends every request with an Authorization header.
type authorized struct{ next http.RoundTripper }

func (a authorized) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer agent")
	return a.next.RoundTrip(r)
}
