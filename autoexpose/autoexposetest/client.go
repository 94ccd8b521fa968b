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

// Seed starts a rollout in the client's session, as a harness does: it
// posts body (JSON; "" posts {}) to /seed_session, and returns what it
// answered: the body carries the "mcp" metadata an agent reads to reach the
// MCP endpoint (server_name, url_path, and the headers of the session
// token). The MCP sessions the client opens from then on send those headers
// (see [Client.Connect]). It fails the test when the server follows no
// rollout contract, or the response carries no token (its status is not
// 2xx, or its body is not a JSON object).
func (c *Client) Seed(t testing.TB, body string) *Response {
	t.Helper()
	if c.srv.tokenHeader == "" {
		t.Fatalf("autoexposetest: Seed: the server follows no rollout contract (it needs POST %s and POST %s)", rollout.SeedPath, rollout.VerifyPath)
	}
	if body == "" {
		body = "{}"
	}
	resp := c.Post(t, rollout.SeedPath, body)
	var parsed map[string]json.RawMessage
	var meta rollout.Metadata
	if json.Unmarshal(resp.Body, &parsed) != nil || json.Unmarshal(parsed[rollout.MetadataKey], &meta) != nil || meta.Headers[c.srv.tokenHeader] == "" {
		t.Fatalf("autoexposetest: POST %s answered %d %s: no session token under %q", rollout.SeedPath, resp.Status, resp.Body, rollout.MetadataKey)
	}
	c.header = make(http.Header)
	for k, v := range meta.Headers {
		c.header.Set(k, v)
	}
	return resp
}

// Verify posts body (a trajectory, JSON) to /verify in the client's
// session, as a harness scores a rollout, and returns what it answered.
func (c *Client) Verify(t testing.TB, body string) *Response {
	t.Helper()
	return c.Post(t, rollout.VerifyPath, body)
}

// ConnectOptions configure an MCP session; nil means the defaults. A
// header that every request of the session must carry (credentials, say)
// goes in the client's HTTP Transport, which the session sends through.
type ConnectOptions struct {
	// ProtocolVersion is the MCP version the client asks for. Default the
	// go-sdk's latest.
	ProtocolVersion string
	// Client configures the go-sdk client: its capabilities and its
	// handlers of the server's notifications (progress, logging).
	Client *mcp.ClientOptions
}

// Connect opens an MCP session with the server's MCP endpoint, with the
// go-sdk client over Streamable HTTP, through the client's HTTP client (its
// cookies, its Transport) and, after [Client.Seed], with the headers of its
// session token. The session closes when the test ends. It fails the test
// when the session cannot be opened.
func (c *Client) Connect(t testing.TB, opts *ConnectOptions) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &ConnectOptions{}
	}
	hc := c.HTTP
	if len(c.header) > 0 {
		hc = &http.Client{Jar: c.HTTP.Jar, Transport: &headerTransport{base: c.HTTP.Transport, header: c.header}, CheckRedirect: c.HTTP.CheckRedirect}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "autoexposetest", Version: "1"}, opts.Client).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: c.srv.URL + c.srv.path, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: opts.ProtocolVersion})
	if err != nil {
		t.Fatalf("autoexposetest: connecting to %s: %v", c.srv.path, err)
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
