package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// serveEnv serves a fresh Env behind the session middleware, as a caller
// installs it.
func serveEnv(t *testing.T) (*httptest.Server, *Env) {
	t.Helper()
	e := newEnv()
	return serveEnvOf(t, e), e
}

// serveEnvOf serves e behind the session middleware.
func serveEnvOf(t *testing.T, e *Env) *httptest.Server {
	t.Helper()
	sessions := session.New(testKeys(t), nil)
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	e.Routes(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// testKeys is the key ring of a test's sessions.
func testKeys(t testing.TB) token.Keys {
	t.Helper()
	keys, err := token.NewKeys([]byte("the workplace tests' secret, 32 bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// A client is one session: its own cookie jar.
type client struct {
	t    testing.TB
	base string
	http *http.Client
}

func newClient(t testing.TB, srv *httptest.Server) *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: srv.URL, http: &http.Client{Jar: jar}}
}

// postRaw posts body as is and returns the status and the answer.
func (c *client) postRaw(path, body string) (int, string) {
	c.t.Helper()
	resp, err := c.http.Post(c.base+path, "application/json", bytes.NewBufferString(body))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// post posts v as JSON and decodes a 200 answer into a map.
func (c *client) post(path string, v any) map[string]any {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	status, body := c.postRaw(path, string(b))
	if status != http.StatusOK {
		c.t.Fatalf("POST %s %s: %d %s", path, b, status, body)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		c.t.Fatalf("POST %s: answer %q: %v", path, body, err)
	}
	return m
}

// A Call is one tool call: the tool's name and its arguments, as an agent
// would send them.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// solution returns the known-good calls of the scenario with this id, from
// testdata/solutions.json.
func solution(t testing.TB, id string) []Call {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "solutions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		Scenario string `json:"scenario"`
		Calls    []Call `json:"calls"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatalf("testdata/solutions.json: %v", err)
	}
	for _, s := range all {
		if s.Scenario == id {
			return s.Calls
		}
	}
	t.Fatalf("testdata/solutions.json has no solution of scenario %q", id)
	return nil
}

// play seeds the scenario, replays calls and returns the verify answer.
func (c *client) play(id string, calls []Call) map[string]any {
	c.t.Helper()
	c.post("/seed_session", map[string]string{"scenario": id})
	for _, call := range calls {
		c.post("/"+call.Tool, call.Arguments)
	}
	return c.post("/verify", map[string]any{})
}
