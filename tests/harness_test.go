package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// A server is a server under test and one client of it: an HTTP client
// whose cookie jar is the client's session. The server listens on a real
// loopback port (serve, dialServer, startExample), for what the test kit
// cannot do — Node clients, raw connections, a listener that closes — or is
// served in process by the test kit (inProcess), for tests whose point is
// the door: the client is then a kit Client, and its posts, seeds and MCP
// sessions are the kit's.
type server struct {
	t      testing.TB
	url    string           // the server's base URL
	srv    *httptest.Server // the listener, when the test serves the handler on one
	client *http.Client
	ts     *autoexposetest.Server // the kit's server, for one served in process
	kit    *autoexposetest.Client // and this client of it
}

// serve starts h on 127.0.0.1 until the test ends.
func serve(t testing.TB, h http.Handler) *server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // registered first, so it runs after the client's cleanup
	s := dialServer(t, srv.URL)
	s.srv = srv
	return s
}

// dialServer returns a client of the server at url, with a cookie jar of
// its own.
func dialServer(t testing.TB, url string) *server {
	jar, _ := cookiejar.New(nil)
	s := &server{t: t, url: url, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	t.Cleanup(s.client.CloseIdleConnections)
	return s
}

// inProcess serves h, what the server serves (the door, or the router it is
// installed on), with the test kit until the test ends, and returns a
// client of it.
func inProcess(t testing.TB, h http.Handler, door *autoexpose.Door) *server {
	t.Helper()
	return kitClient(t, autoexposetest.NewServer(t, h, door))
}

func kitClient(t testing.TB, ts *autoexposetest.Server) *server {
	c := ts.Client()
	return &server{t: t, url: ts.URL, client: c.HTTP, ts: ts, kit: c}
}

// newClient returns a client of the same server with its own cookie jar:
// another user, another session.
func (s *server) newClient() *server {
	if s.ts != nil {
		return kitClient(s.t, s.ts)
	}
	c := dialServer(s.t, s.url)
	c.srv = s.srv
	return c
}

// httpResponse is what the HTTP door answered.
type httpResponse = autoexposetest.Response

// post sends body to path through the HTTP door, as JSON, with the headers
// given as name, value pairs.
func (s *server) post(path, body string, header ...string) httpResponse {
	s.t.Helper()
	if s.kit != nil && len(header) == 0 {
		return *s.kit.Post(s.t, path, body)
	}
	return s.request(http.MethodPost, path, body, true, header)
}

// send sends body to path with method through the HTTP door, with a JSON
// Content-Type unless body is "", and the headers given as name, value
// pairs; path may be percent-encoded, and is sent as written.
func (s *server) send(method, path, body string, header ...string) httpResponse {
	s.t.Helper()
	return s.request(method, path, body, body != "", header)
}

func (s *server) request(method, path, body string, json bool, header []string) httpResponse {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if json {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	r, err := s.do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// do sends req with the client, and reads the whole answer.
func (s *server) do(req *http.Request) (httpResponse, error) {
	resp, err := s.client.Do(req)
	if err != nil {
		return httpResponse{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return httpResponse{}, fmt.Errorf("reading the body: %w", err)
	}
	return httpResponse{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	base := h.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}

// mcpOptions configures connect.
type mcpOptions struct {
	protocol string      // "" for the SDK's latest
	header   http.Header // sent on every MCP request
	path     string      // default "/mcp"
	client   *mcp.ClientOptions
}

// connect opens a go-sdk client session to the server's MCP endpoint, over
// the same HTTP client (and cookie jar) as the HTTP door; for a server the
// kit serves, with the kit client's Connect (which also sends the token of
// its last seed).
func (s *server) connect(o mcpOptions) *mcp.ClientSession {
	s.t.Helper()
	if s.kit != nil && o.path == "" {
		c := *s.kit // the same client, with o.header on this session's requests
		if o.header != nil {
			c.HTTP = &http.Client{Jar: s.kit.HTTP.Jar, Transport: &headerTransport{base: s.kit.HTTP.Transport, header: o.header}, CheckRedirect: s.kit.HTTP.CheckRedirect}
		}
		return c.Connect(s.t, &autoexposetest.ConnectOptions{ProtocolVersion: o.protocol, Client: o.client})
	}
	if o.path == "" {
		o.path = "/mcp"
	}
	cs, err := s.dial(o)
	if err != nil {
		s.t.Fatalf("connecting to %s: %v", o.path, err)
	}
	return cs
}

// dial is connect that returns the error, for tests of a refused
// connection.
func (s *server) dial(o mcpOptions) (*mcp.ClientSession, error) {
	hc := s.client
	if o.header != nil {
		hc = &http.Client{Jar: s.client.Jar, Timeout: s.client.Timeout,
			Transport: &headerTransport{base: s.client.Transport, header: o.header}}
	}
	if o.path == "" {
		o.path = "/mcp"
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpdoor-tests", Version: "1"}, o.client)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             s.url + o.path,
		HTTPClient:           hc,
		DisableStandaloneSSE: true,
	}, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		return nil, err
	}
	s.t.Cleanup(func() { cs.Close() })
	return cs, nil
}

// raw is a request to the MCP endpoint written by hand, for what a go-sdk
// client cannot send or would not show. The zero value is a POST to /mcp
// without a session, with the headers every Streamable HTTP client sends
// (Content-Type: application/json; Accept: application/json,
// text/event-stream).
type raw struct {
	method   string          // default POST
	path     string          // default /mcp
	sid      string          // sent as Mcp-Session-Id
	protocol string          // sent as MCP-Protocol-Version
	header   []string        // more headers, as name-value pairs
	body     io.Reader       // read instead of the body string: sent chunked, without a Content-Length, unless a *strings.Reader
	ctx      context.Context // the request's context; default the test's
	// err, if set, receives the transport's error (a cancelled context,
	// say), which otherwise fails the test; set it off the test's
	// goroutine.
	err *error
}

// initializeBody is an initialize request with this id.
func initializeBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, id)
}

// rawMCP sends body to the server's MCP endpoint as o says, and returns the
// answer as it came.
func (s *server) rawMCP(t testing.TB, body string, o raw) httpResponse {
	t.Helper()
	if o.method == "" {
		o.method = http.MethodPost
	}
	if o.path == "" {
		o.path = "/mcp"
	}
	if o.body == nil {
		o.body = strings.NewReader(body)
	}
	if o.ctx == nil {
		o.ctx = t.Context()
	}
	var r httpResponse
	err := func() error {
		req, err := http.NewRequestWithContext(o.ctx, o.method, s.url+o.path, o.body)
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if o.sid != "" {
			req.Header.Set("Mcp-Session-Id", o.sid)
		}
		if o.protocol != "" {
			req.Header.Set("MCP-Protocol-Version", o.protocol)
		}
		for i := 0; i+1 < len(o.header); i += 2 {
			req.Header.Set(o.header[i], o.header[i+1])
		}
		r, err = s.do(req)
		return err
	}()
	if o.err != nil {
		*o.err = err
	} else if err != nil {
		t.Fatalf("%s %s: %v", o.method, o.path, err)
	}
	return r
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// rawArgs is arguments sent as these exact bytes.
type rawArgs string

func (r rawArgs) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// resultJSON renders a result as the JSON a client receives, minus what the
// protocol layer adds to every result (resultType, and _meta but for
// mcpdoor's error envelope), for comparisons and failure messages. Key
// order is that of mcp.CallToolResult.
func resultJSON(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var meta map[string]json.RawMessage
	json.Unmarshal(m["_meta"], &meta)
	delete(m, "_meta")
	if env, ok := meta["mcpdoor/error"]; ok {
		// The client decodes _meta into a map; the envelope's fields go
		// back into their wire order.
		var e struct {
			Error envelope `json:"error"`
		}
		if err := json.Unmarshal(env, &e); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(e)
		m["_meta"] = json.RawMessage(`{"mcpdoor/error":` + string(b) + `}`)
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for _, k := range []string{"_meta", "content", "structuredContent", "isError"} {
		if v, ok := m[k]; ok {
			if out.Len() > 1 {
				out.WriteByte(',')
			}
			fmt.Fprintf(&out, "%q:%s", k, v)
		}
	}
	out.WriteByte('}')
	return out.String()
}

// compactJSON compacts a JSON document, failing the test if it is not JSON.
func compactJSON(t testing.TB, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	return out.String()
}

// connectSeeded seeds a rollout for this client (its cookie session) and
// connects to the MCP endpoint with the token the seed response carries.
func (s *server) connectSeeded(o mcpOptions) *mcp.ClientSession {
	s.t.Helper()
	if s.kit != nil {
		s.kit.Seed(s.t, `{}`) // the kit client's sessions send its token from now on
		return s.connect(o)
	}
	r, meta := s.seedSession(`{}`)
	if len(meta.Headers) == 0 {
		s.t.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	if o.header == nil {
		o.header = http.Header{}
	}
	for k, v := range meta.Headers {
		o.header.Set(k, v)
	}
	return s.connect(o)
}
