package rollout_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// answer is a handler that answers status and body, as JSON.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// seed serves h on a listener of its own and posts body to its
// /seed_session with cookies; it returns the response and its body.
func seed(t *testing.T, h http.Handler, cookies []*http.Cookie, body string) (*http.Response, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // a handler's panic is part of some tests
	srv.Start()
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/seed_session", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, string(got) + "<" + err.Error() + ">"
	}
	return resp, string(got)
}

// sessionOf returns the session the response's session cookie names, and
// fails the test unless it sets exactly one.
func sessionOf(t *testing.T, mgr *sessions.Manager, resp *http.Response) string {
	t.Helper()
	var sids []string
	for _, c := range resp.Cookies() {
		if c.Name == mgr.CookieName() {
			sid, err := mgr.Decode(c.Value)
			if err != nil {
				t.Errorf("session cookie %q: %v", c.Value, err)
			}
			sids = append(sids, sid)
		}
	}
	if len(sids) != 1 {
		t.Fatalf("%d session cookies, want 1: Set-Cookie %q", len(sids), resp.Header.Values("Set-Cookie"))
	}
	return sids[0]
}

// tokenOf returns the session token of a seed response's metadata, or "".
func tokenOf(body string) string {
	var seeded struct {
		MCP rollout.Metadata `json:"mcp"`
	}
	json.Unmarshal([]byte(body), &seeded)
	return seeded.MCP.Headers[rollout.DefaultTokenHeader]
}

// TestSeedMetadata: the metadata is appended to the handler's JSON object
// as its last member, every other byte kept; its token names the session
// the response's cookie names.
func TestSeedMetadata(t *testing.T) {
	leakcheck.Check(t)
	const meta = `"mcp":{"server_name":"weather","url_path":"/mcp","transport":"http","headers":{"X-NeMo-Gym-Session-Token":"TOKEN"}}`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"empty object", `{}`, `{` + meta + `}`},
		{"one member", `{"task":"paris"}`, `{"task":"paris",` + meta + `}`},
		{"spacing, nesting and a brace in a string", "{ \"a\" : 1 ,\n \"b\": [1, {\"c\": \"}\"}] }\n",
			"{ \"a\" : 1 ,\n \"b\": [1, {\"c\": \"}\"}] ," + meta + "}\n"},
		{"spaced empty object", "  { }  ", "  { " + meta + "}  "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			c, mgr := newContract(t, rollout.Config{}, &logs)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(len(tc.body)))
				w.Header().Set("X-Task", "7")
				io.WriteString(w, tc.body)
			})
			resp, body := seed(t, c.Seed(h), nil, `{}`)
			tok := tokenOf(body)
			if want := strings.Replace(tc.want, "TOKEN", tok, 1); tok == "" || body != want {
				t.Errorf("body\n  %q\nwant\n  %q", body, want)
			}
			if resp.ContentLength != int64(len(body)) || resp.Header.Get("X-Task") != "7" || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("header %v", resp.Header)
			}
			sid := sessionOf(t, mgr, resp)
			if got, err := c.Admit(withToken(tok), "forecast", ""); got.SID != sid || err != nil {
				t.Errorf("the token names session %q (%v), the cookie %q", got.SID, err, sid)
			}
			if logs.Len() > 0 {
				t.Errorf("log:\n%s", logs.String())
			}
		})
	}
}

// TestSeedCookies: every response of the wrap sets the session's cookie, a
// refusal included, beside the cookies the handler sets; a request's
// session cookie keeps its session.
func TestSeedCookies(t *testing.T) {
	leakcheck.Check(t)
	mgr := sessions.New(testKeys(t, testSecret), nil)
	mine, err := mgr.Cookie("rollout-7")
	if err != nil {
		t.Fatal(err)
	}
	mgr.Store().Open(t.Context(), "rollout-7", nil, 0, true) // a session this replica holds
	withCookies := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark"})
		http.SetCookie(w, &http.Cookie{Name: "lang", Value: "en"})
		io.WriteString(w, `{}`)
	})
	failing := func([]byte) ([]string, error) { return nil, errors.New("no such task") }
	for _, tc := range []struct {
		name    string
		h       http.Handler
		cfg     rollout.Config
		cookies []*http.Cookie
		body    string
		status  int
		sid     string   // "" for a new session
		others  []string // the handler's cookies, as sent
	}{
		{"a token", answer(200, `{}`), rollout.Config{}, nil, `{}`, 200, "", nil},
		{"a token, in the request's session", answer(200, `{}`), rollout.Config{}, []*http.Cookie{mine}, `{}`, 200, "rollout-7", nil},
		{"500", answer(500, `{"error":"no task"}`), rollout.Config{}, []*http.Cookie{mine}, `{}`, 500, "rollout-7", nil},
		{"204", answer(204, ``), rollout.Config{}, nil, `{}`, 204, "", nil},
		{"the handler's cookies", withCookies, rollout.Config{}, nil, `{}`, 200, "", []string{"theme=dark", "lang=en"}},
		{"the AllowedTools hook fails", answer(200, `{}`), rollout.Config{AllowedTools: failing}, []*http.Cookie{mine}, `{}`, 500, "rollout-7", nil},
		{"a request body over the limit", answer(200, `{}`), rollout.Config{MaxSeedBytes: 1 << 10}, nil, strings.Repeat(" ", 1025), 413, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rollout.New(tc.cfg, rollout.Params{Server: "weather", Path: "/mcp", Sessions: mgr, MaxHeldBytes: 1 << 10, Logger: logTo(new(bytes.Buffer))})
			resp, body := seed(t, c.Seed(tc.h), tc.cookies, tc.body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d %q, want %d", resp.StatusCode, body, tc.status)
			}
			sid := sessionOf(t, mgr, resp)
			if tc.sid != "" && sid != tc.sid {
				t.Errorf("session %q, want %q", sid, tc.sid)
			}
			var others []string
			for _, line := range resp.Header.Values("Set-Cookie") {
				if !strings.HasPrefix(line, mgr.CookieName()+"=") {
					others = append(others, line)
				}
			}
			if !slices.Equal(others, tc.others) {
				t.Errorf("the handler's cookies %q, want %q", others, tc.others)
			}
			if tok := tokenOf(body); tok != "" {
				if got, _ := c.Admit(withToken(tok), "forecast", ""); got.SID != sid {
					t.Errorf("the token names session %q, the cookie %q", got.SID, sid)
				}
			}
		})
	}
}

// TestSeedAllowedTools: the hook gets the raw body posted; the list it
// returns is the token's; its error fails the request before the handler
// runs, and no token is minted.
func TestSeedAllowedTools(t *testing.T) {
	leakcheck.Check(t)
	const posted = "{\"task\": \"forecast\" }\n"
	for _, tc := range []struct {
		name    string
		tools   []string
		err     error
		allowed string // the tools of "forecast get_weather" the token may call
	}{
		{"a list", []string{"get_weather"}, nil, "get_weather"},
		{"nil: every tool", nil, nil, "forecast get_weather"},
		{"an empty list: none", []string{}, nil, ""},
		{"an error", nil, errors.New("no such task"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			var served atomic.Int32
			var logs bytes.Buffer
			c, _ := newContract(t, rollout.Config{AllowedTools: func(body []byte) ([]string, error) {
				got = body
				return tc.tools, tc.err
			}}, &logs)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				io.Copy(w, r.Body) // the handler reads the body too
			})
			resp, body := seed(t, c.Seed(h), nil, posted)
			if string(got) != posted {
				t.Errorf("the hook got %q, want %q", got, posted)
			}
			if tc.err != nil {
				if resp.StatusCode != 500 || body != "seed_session: cannot decide this rollout's tools\n" || served.Load() != 0 {
					t.Errorf("%d %q, the handler ran %d times", resp.StatusCode, body, served.Load())
				}
				const want = `level=ERROR msg="mcpdoor: the AllowedTools hook failed; no session token minted" err="no such task"` + "\n"
				if logs.String() != want {
					t.Errorf("log:\n  %s\nwant:\n  %s", logs.String(), want)
				}
				return
			}
			tok := tokenOf(body)
			if !strings.HasPrefix(body, `{"task": "forecast" ,"mcp":`) || tok == "" {
				t.Fatalf("body %q", body)
			}
			var allowed []string
			for _, tool := range []string{"forecast", "get_weather"} {
				if _, err := c.Admit(withToken(tok), tool, ""); err == nil {
					allowed = append(allowed, tool)
				}
			}
			if strings.Join(allowed, " ") != tc.allowed {
				t.Errorf("the token allows %q, want %q", allowed, tc.allowed)
			}
		})
	}
}

// TestSeedRequestLimit: a request body over Config.MaxSeedBytes gets 413
// naming mcp.rollout.max_seed_bytes, and the handler never runs; one at the
// limit reaches it whole, though it is over Params.MaxHeldBytes, the cap
// on the response held back.
func TestSeedRequestLimit(t *testing.T) {
	leakcheck.Check(t)
	c, _ := newContract(t, rollout.Config{MaxSeedBytes: 2048}, nil) // MaxHeldBytes 1024
	var got atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
		io.WriteString(w, `{}`)
	})
	atLimit := `{"pad":"` + strings.Repeat("x", 2048-len(`{"pad":""}`)) + `"}`
	if resp, body := seed(t, c.Seed(h), nil, atLimit); resp.StatusCode != 200 || got.Load() != 2048 || !strings.Contains(body, `"mcp":`) {
		t.Errorf("2048 bytes: %d %q, the handler read %d", resp.StatusCode, body, got.Load())
	}
	got.Store(-1)
	resp, body := seed(t, c.Seed(h), nil, atLimit+" ")
	if resp.StatusCode != 413 || body != "request body exceeds the 2048-byte limit (mcp.rollout.max_seed_bytes)\n" || got.Load() != -1 {
		t.Errorf("2049 bytes: %d %q, the handler read %d", resp.StatusCode, body, got.Load())
	}
	// A body that does not declare its length is refused once it passes the limit.
	srv := httptest.NewServer(c.Seed(h))
	defer srv.Close()
	cr, err := srv.Client().Post(srv.URL+"/seed_session", "application/json", io.MultiReader(strings.NewReader(atLimit+" ")))
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Body.Close()
	b, _ := io.ReadAll(cr.Body)
	if cr.StatusCode != 413 || string(b) != "request body exceeds the 2048-byte limit (mcp.rollout.max_seed_bytes)\n" || got.Load() != -1 {
		t.Errorf("2049 bytes, chunked: %d %q, the handler read %d", cr.StatusCode, b, got.Load())
	}
}

// TestSeedLargeResponse: a response over Params.MaxHeldBytes, which cannot
// be held back to be rewritten, goes out as the handler writes it, flushes
// included, with the session cookie; the log says so.
func TestSeedLargeResponse(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	c, mgr := newContract(t, rollout.Config{}, &logs) // MaxHeldBytes 1024
	chunk := strings.Repeat("x", 600)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Task", "7")
		http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark"})
		io.WriteString(w, `{"a":"`+chunk)
		w.(http.Flusher).Flush()
		w.Header().Set("X-Late", "1") // after the status: never sent, as by net/http
		io.WriteString(w, chunk)
		w.(http.Flusher).Flush()
		io.WriteString(w, chunk+`"}`)
	})
	resp, body := seed(t, c.Seed(h), nil, `{}`)
	if want := `{"a":"` + chunk + chunk + chunk + `"}`; body != want {
		t.Errorf("body of %d bytes, want the handler's %d", len(body), len(want))
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-Task") != "7" || resp.Header.Get("X-Late") != "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %v", resp.StatusCode, resp.Header)
	}
	sessionOf(t, mgr, resp)
	if !slices.Contains(resp.Header.Values("Set-Cookie"), "theme=dark") {
		t.Errorf("Set-Cookie %q", resp.Header.Values("Set-Cookie"))
	}
	const want = `level=WARN msg="mcpdoor: /seed_session's response carries no MCP session token: the handler's response is over 1024 bytes (mcp.max_body_bytes), ` +
		`more than is held to add the metadata; it goes out as the handler wrote it" status=200` + "\n"
	if logs.String() != want {
		t.Errorf("log:\n  %s\nwant:\n  %s", logs.String(), want)
	}
}

// TestSeedPanic: a handler's panic while its response is held back is a
// 500 with the session cookie, logged; once the response has gone out, the
// panic goes on, and the client sees the response cut, as without the wrap.
func TestSeedPanic(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	c, mgr := newContract(t, rollout.Config{}, &logs) // MaxHeldBytes 1024
	early := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"a":`)
		panic("no task")
	})
	resp, body := seed(t, c.Seed(early), nil, `{}`)
	if resp.StatusCode != 500 || body != "Internal Server Error" {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
	sessionOf(t, mgr, resp)
	lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `level=ERROR msg="mcpdoor: /seed_session handler panicked" panic="no task" stack="goroutine `) ||
		lines[1] != `level=WARN msg="mcpdoor: /seed_session's response carries no MCP session token: the handler answered a status other than 2xx" status=500` {
		t.Errorf("log:\n%s", logs.String())
	}

	late := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 2000))
		w.(http.Flusher).Flush()
		panic("no task")
	})
	if _, body := seed(t, c.Seed(late), nil, `{}`); !strings.HasSuffix(body, "<unexpected EOF>") {
		t.Errorf("a panic after 2000 bytes: body ends %q, want it cut", body[max(len(body)-40, 0):])
	}
}

// stripPrefix serves h behind rollout.StripPrefix, as the Door serves a
// router: outermost.
func stripPrefix(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unprefixed, ok := rollout.StripPrefix(r); ok {
			r = unprefixed
		}
		h.ServeHTTP(w, r)
	})
}

// routerFor is a router that serves seed at /seed_session, under NeMo
// Gym's prefix too, as a server that serves its Door does.
func routerFor(seed http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Method(http.MethodPost, rollout.SeedPath, seed)
	return stripPrefix(r)
}

// TestSeedRolloutToken: a token seeded under /ng-rollout/<id>/ is bound to
// that rollout: its calls run for it, under the prefix or without one, and
// are refused under another rollout's prefix. A token seeded without the
// prefix is bound to none, and refused under any prefix.
func TestSeedRolloutToken(t *testing.T) {
	c, _ := newContract(t, rollout.Config{}, nil)
	srv := httptest.NewServer(routerFor(c.Seed(answer(200, `{}`))))
	defer srv.Close()
	tokenAt := func(path string) string {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		tok := tokenOf(string(body))
		if tok == "" {
			t.Fatalf("seed at %s: %d %s", path, resp.StatusCode, body)
		}
		return tok
	}
	ofA, unbound := tokenAt("/ng-rollout/rolloutA/seed_session"), tokenAt("/seed_session")
	for _, tc := range []struct {
		name, tok, under, rollout, refusal string
	}{
		{"A's token at the plain path", ofA, "", "rolloutA", ""},
		{"A's token under A's prefix", ofA, "rolloutA", "rolloutA", ""},
		{"A's token under B's prefix", ofA, "rolloutB", "", `the session token was minted under rollout "rolloutA", and the call came under /ng-rollout/rolloutB/`},
		{"an unprefixed seed's token at the plain path", unbound, "", "", ""},
		{"an unprefixed seed's token under a prefix", unbound, "rolloutB", "", "the session token was minted without a rollout prefix, and the call came under /ng-rollout/rolloutB/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := c.Admit(withToken(tc.tok), "forecast", tc.under)
			if tc.refusal == "" {
				if err != nil || p.SID == "" || p.Rollout != tc.rollout {
					t.Errorf("Admit = %+v, %v; want rollout %q", p, err, tc.rollout)
				}
				return
			}
			want := rollout.Refusal{Code: rollout.CodeRolloutMismatch, Text: "MCP session token belongs to another rollout.", Message: tc.refusal, Status: http.StatusForbidden}
			var got *rollout.Refusal
			if !errors.As(err, &got) || *got != want || p.SID != "" {
				t.Errorf("Admit = %+v, %v; want the refusal %+v", p, err, want)
			}
		})
	}
}

// TestSeedLogsRollout: under NeMo Gym's /ng-rollout/<id>/ prefix, the
// wrap's log lines name the rollout.
func TestSeedLogsRollout(t *testing.T) {
	leakcheck.Check(t)
	var logs bytes.Buffer
	c, _ := newContract(t, rollout.Config{}, &logs)
	srv := httptest.NewServer(routerFor(c.Seed(answer(200, `[]`))))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/ng-rollout/task-3.a1/seed_session", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close() // the handler has returned, and logged
	const want = `level=WARN msg="mcpdoor: /seed_session's response carries no MCP session token: the handler's body is not a JSON object; ` +
		`answer a JSON object, at least {}, so that the \"mcp\" metadata can be added" rollout_id=task-3.a1 status=200` + "\n"
	if resp.StatusCode != 200 || logs.String() != want {
		t.Errorf("%d, log:\n  %s\nwant:\n  %s", resp.StatusCode, logs.String(), want)
	}
}

// BenchmarkSeed is the wrap's cost on a seed request: the session, the
// response held back, the token minted and the metadata added.
func BenchmarkSeed(b *testing.B) {
	c, _ := newContract(b, rollout.Config{}, nil)
	reply := `{"task":"Paris","state":{"turn":0,"budget":12,"notes":"` + strings.Repeat("n", 160) + `"}}`
	h := c.Seed(answer(http.StatusOK, reply))
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/seed_session", strings.NewReader(`{"task_id":7}`)))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

// TestSeedURLPath: the metadata's url_path is where the door serves MCP for
// the seed's request: under /ng-rollout/<id>/ when the seed came under it
// (the door serves /ng-rollout/<id>/mcp as /mcp), so that a proxy hashing
// the path sends the rollout's MCP calls where its seed went.
func TestSeedURLPath(t *testing.T) {
	c, _ := newContract(t, rollout.Config{}, nil)
	srv := httptest.NewServer(routerFor(c.Seed(answer(200, `{}`))))
	defer srv.Close()
	for _, tc := range []struct{ seedAt, want string }{
		{"/seed_session", "/mcp"},
		{"/ng-rollout/rollout-7.b_2/seed_session", "/ng-rollout/rollout-7.b_2/mcp"},
		{"/ng-rollout/0/seed_session", "/ng-rollout/0/mcp"},
	} {
		resp, err := http.Post(srv.URL+tc.seedAt, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var seeded struct {
			MCP rollout.Metadata `json:"mcp"`
		}
		if err := json.Unmarshal(body, &seeded); err != nil || seeded.MCP.URLPath != tc.want {
			t.Errorf("seed at %s: url_path %q, want %q (%s)", tc.seedAt, seeded.MCP.URLPath, tc.want, body)
		}
	}
}
