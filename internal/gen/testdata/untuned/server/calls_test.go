package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// headers adds a header to every request of a client.
type headers struct {
	base http.RoundTripper
	set  http.Header
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.set {
		r.Header[k] = v
	}
	return h.base.RoundTrip(r)
}

// serve installs the app with yaml and returns an MCP client whose
// requests carry set, and the app's address.
func serve(t *testing.T, yaml string, set http.Header) (*mcp.ClientSession, string) {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := autoexpose.Install(NewRouter(slog.New(slog.DiscardHandler)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	srv := httptest.NewServer(door)
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: headers{base: http.DefaultTransport, set: set}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "calls", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, srv.URL
}

// call calls tool over MCP, and returns whether the result is an error,
// and its text.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) (bool, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return res.IsError, strings.Join(text, "\n")
}

// httpDo makes a request over HTTP, and returns the status and the body.
func httpDo(t *testing.T, method, url, body string, set http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range set {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// TestStaffSkipsTheCheck: Update requires a note of everyone but staff,
// who return before the check; so the note is not required in the schema,
// and a staff member's call without one does over MCP what it does over
// HTTP, while anyone else's gets the handler's own refusal.
func TestStaffSkipsTheCheck(t *testing.T) {
	staff := http.Header{"Authorization": {"Bearer staff"}}
	cs, url := serve(t, untunedYAML, staff)
	if isErr, text := call(t, cs, "create_order", `{"customer":"ana","lines":[{"sku":"mug","quantity":1}]}`); isErr {
		t.Fatalf("create_order: %s", text)
	}
	if isErr, text := call(t, cs, "update_order", `{"id":"o1","priority":2}`); isErr || !strings.Contains(text, `"priority":2`) {
		t.Errorf("a staff member's update without a note over MCP: isError %v, %s; want it done, as over HTTP", isErr, text)
	}
	if status, body := httpDo(t, "PATCH", url+"/api/orders/o1", `{"priority":3}`, staff); status != http.StatusOK {
		t.Errorf("over HTTP: %d %s", status, body)
	}
	anyone, _ := serve(t, untunedYAML, nil)
	call(t, anyone, "create_order", `{"customer":"ana","lines":[{"sku":"mug","quantity":1}]}`)
	want := "HTTP 400 from PATCH /api/orders/{id}: note is required"
	if isErr, text := call(t, anyone, "update_order", `{"id":"o1","priority":2}`); !isErr || text != want {
		t.Errorf("anyone else's update without a note: isError %v, %q; want the handler's refusal %q", isErr, text, want)
	}
}

// TestConfirmTakesNoBody: a POST route whose handler reads only its query
// is sent no body, so that a middleware that takes form posts (and
// requests without a body) lets the call through.
func TestConfirmTakesNoBody(t *testing.T) {
	cs, _ := serve(t, untunedYAML, nil)
	if isErr, text := call(t, cs, "confirm_pet", `{"id":"1","tkn":"t0k"}`); isErr || text != `{"confirmed":true,"token":"t0k"}` {
		t.Errorf("confirm_pet: isError %v, %s; want the confirmation", isErr, text)
	}
}

// TestUnforwardedHeader: the route behind authenticate answers 401 when
// the call's X-JWT is not forwarded, and the result says so, naming the
// header and mcp.forward_headers; forwarded, the call goes through.
func TestUnforwardedHeader(t *testing.T) {
	jwt := http.Header{"X-Jwt": {"jwt-of-ana"}}
	cs, _ := serve(t, untunedYAML, jwt)
	want := "HTTP 401 from GET /api/me: Unauthorized (the call carried the header X-Jwt, which the door does not forward to the route; to send it, list it in mcp.forward_headers)"
	if isErr, text := call(t, cs, "get_me", `{}`); !isErr || text != want {
		t.Errorf("get_me with X-JWT not forwarded: isError %v, %q; want %q", isErr, text, want)
	}
	cs, _ = serve(t, untunedYAML+"  forward_headers: [Authorization, X-JWT]\n", jwt)
	if isErr, text := call(t, cs, "get_me", `{}`); isErr || text != `{"name":"ana"}` {
		t.Errorf("get_me with X-JWT forwarded: isError %v, %s", isErr, text)
	}
}
