package autoexposetest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// A Seed is what /seed_session answered: the rollout's session token and
// what an agent reads of the response's "mcp" key to reach the MCP
// endpoint.
type Seed struct {
	// Response is the /seed_session response, its body with the "mcp" key.
	Response
	// ServerName and URLPath are the MCP server's name and its endpoint's
	// path: the mcp__<server_name>__ prefix of the agent's tool names, and
	// where it connects.
	ServerName, URLPath string
	// Headers are the headers the agent sends with every MCP request: the
	// session token's.
	Headers map[string]string
	// Token is the rollout's session token, sent in its header.
	Token string
}

// Seed starts a rollout in the client's session, as a harness does: it
// posts body (JSON; "" posts {}) to /seed_session, and returns the token
// and metadata of the response. The MCP sessions the client opens from then
// on send the token (see [Client.Connect]). It fails the test when the server
// follows no rollout contract, or the response carries no token (its status
// is not 2xx, or its body is not a JSON object).
func (c *Client) Seed(t testing.TB, body string) *Seed {
	t.Helper()
	if !c.srv.link.Rollout {
		t.Fatalf("autoexposetest: Seed: the server follows no rollout contract (it needs POST %s and POST %s)", rollout.SeedPath, rollout.VerifyPath)
	}
	if body == "" {
		body = "{}"
	}
	resp := c.Post(t, rollout.SeedPath, body)
	var parsed map[string]json.RawMessage
	var meta rollout.Metadata
	if json.Unmarshal(resp.Body, &parsed) != nil || json.Unmarshal(parsed[rollout.MetadataKey], &meta) != nil || meta.Headers[c.srv.link.TokenHeader] == "" {
		t.Fatalf("autoexposetest: POST %s answered %d %s: no session token under %q", rollout.SeedPath, resp.Status, resp.Body, rollout.MetadataKey)
	}
	c.header = make(http.Header)
	for k, v := range meta.Headers {
		c.header.Set(k, v)
	}
	return &Seed{Response: *resp, ServerName: meta.ServerName, URLPath: meta.URLPath, Headers: meta.Headers, Token: meta.Headers[c.srv.link.TokenHeader]}
}

// Verify posts body (a trajectory, JSON) to /verify in the client's
// session, as a harness scores a rollout, and returns what it answered.
func (c *Client) Verify(t testing.TB, body string) *Response {
	t.Helper()
	return c.Post(t, rollout.VerifyPath, body)
}

// ConnectOptions configure an MCP session; nil means the defaults.
type ConnectOptions struct {
	// ProtocolVersion is the MCP version the client asks for. Default the
	// go-sdk's latest.
	ProtocolVersion string
	// Header is sent with every MCP request, besides the session token of
	// the client's last Seed.
	Header http.Header
	// Client configures the go-sdk client: its capabilities and its
	// handlers of the server's notifications (progress, logging).
	Client *mcp.ClientOptions
}

// Connect opens an MCP session with the server's MCP endpoint, with the
// go-sdk client over Streamable HTTP, carrying the client's cookies and,
// after [Client.Seed], its session token. The session closes when the test ends. It
// fails the test when the session cannot be opened.
func (c *Client) Connect(t testing.TB, opts *ConnectOptions) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &ConnectOptions{}
	}
	header := c.header.Clone()
	for k, v := range opts.Header {
		if header == nil {
			header = make(http.Header)
		}
		header[http.CanonicalHeaderKey(k)] = v
	}
	hc := c.HTTP
	if len(header) > 0 {
		hc = &http.Client{Jar: c.HTTP.Jar, Transport: &headerTransport{base: c.HTTP.Transport, header: header}, CheckRedirect: c.HTTP.CheckRedirect}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "autoexposetest", Version: "1"}, opts.Client)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.srv.URL + c.srv.link.Path, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: opts.ProtocolVersion})
	if err != nil {
		t.Fatalf("autoexposetest: connecting to %s: %v", c.srv.link.Path, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// headerTransport adds a fixed header to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return h.base.RoundTrip(r)
}
