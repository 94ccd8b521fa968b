package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// client sends requests to one test server with one token and keeps its
// cookies, as a browser or an HTTP client would.
type client struct {
	t     *testing.T
	url   string
	token string
	http  *http.Client
}

// do sends method path with body (none when "") and returns the status,
// the body and the response.
func (c *client) do(method, path, body string) (int, string, *http.Response) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.url+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp
}

// expect sends a request and checks its status and exact body.
func (c *client) expect(method, path, body string, status int, want string) *http.Response {
	c.t.Helper()
	got, gotBody, resp := c.do(method, path, body)
	if got != status || gotBody != want {
		c.t.Errorf("%s %s %s: %d %s\nwant %d %s", method, path, body, got, gotBody, status, want)
	}
	return resp
}

func serveAPI(t *testing.T, cfg Config) *httptest.Server {
	ts := httptest.NewServer(newAPI(cfg))
	t.Cleanup(ts.Close)
	return ts
}

func newClient(t *testing.T, ts *httptest.Server, token string) *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, url: ts.URL, token: token, http: &http.Client{Jar: jar}}
}

// TestNotes: the notes API, one route after another, with exact answers.
func TestNotes(t *testing.T) {
	c := newClient(t, serveAPI(t, Config{}), "demo-token")
	resp := c.expect("POST", "/api/notes/", `{"text":"buy milk","tags":["home","errand","home"]}`, 201,
		`{"id":1,"text":"buy milk","tags":["errand","home"],"archived":false}`+"\n")
	if loc := resp.Header.Get("Location"); loc != "/api/notes/1/" {
		t.Errorf("Location = %q, want /api/notes/1/", loc)
	}
	c.expect("POST", "/api/notes/", `{"text":"Call Ann"}`, 201, `{"id":2,"text":"Call Ann","tags":[],"archived":false}`+"\n")
	c.expect("POST", "/api/notes", `{"text":"water plants","tags":["home"]}`, 201, `{"id":3,"text":"water plants","tags":["home"],"archived":false}`+"\n")

	c.expect("GET", "/api/notes/", "", 200, `{"notes":[`+
		`{"id":3,"text":"water plants","tags":["home"],"archived":false},`+
		`{"id":2,"text":"Call Ann","tags":[],"archived":false},`+
		`{"id":1,"text":"buy milk","tags":["errand","home"],"archived":false}]}`+"\n")
	c.expect("GET", "/api/notes?tag=home&limit=1", "", 200, `{"notes":[{"id":3,"text":"water plants","tags":["home"],"archived":false}]}`+"\n")
	c.expect("GET", "/api/notes/?tag=nothing", "", 200, `{"notes":[]}`+"\n")
	c.expect("GET", "/api/notes/search?q=ANN", "", 200, `{"notes":[{"id":2,"text":"Call Ann","tags":[],"archived":false}]}`+"\n")

	c.expect("GET", "/api/notes/2/", "", 200, `{"id":2,"text":"Call Ann","tags":[],"archived":false}`+"\n")
	c.expect("GET", "/api/notes/2", "", 200, `{"id":2,"text":"Call Ann","tags":[],"archived":false}`+"\n")
	c.expect("PATCH", "/api/notes/2/", `{"tags":["work"]}`, 200, `{"id":2,"text":"Call Ann","tags":["work"],"archived":false}`+"\n")
	c.expect("PATCH", "/api/notes/2", `{"text":"Call Ann back"}`, 200, `{"id":2,"text":"Call Ann back","tags":["work"],"archived":false}`+"\n")
	c.expect("POST", "/api/notes/2/archive", "", 200, `{"id":2,"text":"Call Ann back","tags":["work"],"archived":true}`+"\n")
	c.expect("POST", "/api/notes/2/archive", "", 409, `{"error":"note 2 is already archived"}`+"\n")
	c.expect("DELETE", "/api/notes/1/", "", 204, "")
	c.expect("GET", "/api/notes/1/", "", 404, `{"error":"no note \"1\""}`+"\n")
	c.expect("GET", "/healthz", "", 200, `{"status":"ok"}`+"\n")

	admin := newClient(t, serveAPI(t, Config{}), "admin-token")
	admin.expect("GET", "/api/admin/stats", "", 200, `{"users":0,"notes":0,"archived":0}`+"\n")
}

// TestErrors: what a client that gets something wrong is told.
func TestErrors(t *testing.T) {
	ts := serveAPI(t, Config{Users: map[string]string{"t-ann": "ann"}, AdminToken: "root"})
	ann := newClient(t, ts, "t-ann")
	ann.expect("POST", "/api/notes/", `{"text":"x"}`, 201, `{"id":1,"text":"x","tags":[],"archived":false}`+"\n")
	for _, tc := range []struct {
		token, method, path, body string
		status                    int
		want                      string
	}{
		{"", "GET", "/api/notes/", "", 401, `{"error":"missing or unknown bearer token"}`},
		{"demo-token", "GET", "/api/notes/", "", 401, `{"error":"missing or unknown bearer token"}`},
		{"t-ann", "GET", "/api/notes/?limit=0", "", 400, `{"error":"limit must be an integer from 1 to 100, not \"0\""}`},
		{"t-ann", "GET", "/api/notes/?limit=ten", "", 400, `{"error":"limit must be an integer from 1 to 100, not \"ten\""}`},
		{"t-ann", "GET", "/api/notes/search", "", 400, `{"error":"q is required: the text to look for"}`},
		{"t-ann", "GET", "/api/notes/abc/", "", 404, `{"error":"no note \"abc\""}`},
		{"t-ann", "GET", "/api/notes/99/", "", 404, `{"error":"no note \"99\""}`},
		{"t-ann", "POST", "/api/notes/", `{"text":"  "}`, 422, `{"error":"text must not be empty"}`},
		{"t-ann", "POST", "/api/notes/", `{"txt":"x"}`, 400, `{"error":"the body is not the JSON this route takes: json: unknown field \"txt\""}`},
		{"t-ann", "PATCH", "/api/notes/1/", `{"text":""}`, 422, `{"error":"text must not be empty"}`},
		{"t-ann", "GET", "/api/admin/stats", "", 403, `{"error":"the admin token is required"}`},
		{"root", "GET", "/api/notes/", "", 401, `{"error":"missing or unknown bearer token"}`},
		{"root", "DELETE", "/api/admin/users/Ann/notes", "", 404, "404 page not found"},
	} {
		c := newClient(t, ts, tc.token)
		got, body, resp := c.do(tc.method, tc.path, tc.body)
		if got != tc.status || strings.TrimSuffix(body, "\n") != tc.want {
			t.Errorf("%s %s %s (token %q): %d %s\nwant %d %s", tc.method, tc.path, tc.body, tc.token, got, body, tc.status, tc.want)
		}
		if got == 401 && resp.Header.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("%s %s: 401 without WWW-Authenticate: Bearer", tc.method, tc.path)
		}
	}
	admin := newClient(t, ts, "root")
	admin.expect("GET", "/api/admin/stats", "", 200, `{"users":1,"notes":1,"archived":0}`+"\n")
	admin.expect("DELETE", "/api/admin/users/ann/notes", "", 200, `{"deleted":1}`+"\n")
	ann.expect("GET", "/api/notes/", "", 200, `{"notes":[]}`+"\n")
}

// TestSessions: with the session middleware, each client has its own
// notes; without, one store is shared.
func TestSessions(t *testing.T) {
	keys, err := token.NewKeys([]byte("a test secret of at least thirty-two bytes"))
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAPI(t, Config{Sessions: session.New(keys, nil).Middleware})
	one, two := newClient(t, ts, "demo-token"), newClient(t, ts, "demo-token")
	one.expect("POST", "/api/notes/", `{"text":"mine"}`, 201, `{"id":1,"text":"mine","tags":[],"archived":false}`+"\n")
	two.expect("GET", "/api/notes/", "", 200, `{"notes":[]}`+"\n")
	two.expect("GET", "/api/notes/1/", "", 404, `{"error":"no note \"1\""}`+"\n")
	two.expect("POST", "/api/notes/", `{"text":"yours"}`, 201, `{"id":1,"text":"yours","tags":[],"archived":false}`+"\n")
	one.expect("GET", "/api/notes/1/", "", 200, `{"id":1,"text":"mine","tags":[],"archived":false}`+"\n")
}
