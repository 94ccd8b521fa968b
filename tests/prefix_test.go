package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

var (
	cookieValue = regexp.MustCompile(`^([^=]+)=[^;]*`)
	tokenValue  = regexp.MustCompile(`"X-NeMo-Gym-Session-Token":"[^"]*"`)
)

// transcript renders a response as text with what must differ between two
// sessions masked (the session cookie's value, the session token, and so
// the length of a body that carries one: a token minted under the prefix
// carries the rollout id) and the Date header left out; everything else
// byte for byte.
func transcript(r httpResponse) string {
	h := r.Header.Clone()
	h.Del("Date")
	if h.Get("Mcpdoor-Session") != "" {
		h.Set("Mcpdoor-Session", "<session>")
	}
	if tokenValue.Match(r.Body) && h.Get("Content-Length") != "" {
		h.Set("Content-Length", "<length>")
	}
	for i, c := range h.Values("Set-Cookie") {
		h["Set-Cookie"][i] = cookieValue.ReplaceAllString(c, "$1=<cookie>")
	}
	var b bytes.Buffer
	b.WriteString(http.StatusText(r.Status) + "\n")
	h.Write(&b)
	b.WriteString("\n")
	b.Write(tokenValue.ReplaceAll(r.Body, []byte(`"X-NeMo-Gym-Session-Token":"<token>"`)))
	return b.String()
}

const rolloutID = "task-3_rollout.7-a1"

// TestRolloutPrefixWeather: with NeMo Gym's observability on, every path
// arrives under /ng-rollout/<rollout_id>/. The weather example answers each
// such request exactly as the unprefixed one, in its own session, over both
// doors; the session the prefixed requests build is the one /verify scores.
func TestRolloutPrefixWeather(t *testing.T) {
	s := startExample(t, "weather", exampleConfig("name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:")).server
	plain, prefixed := s.newClient(), s.newClient()
	prefix := "/ng-rollout/" + rolloutID
	trajectory := `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__example_mcp_weather__get_weather","arguments":"{\"city\":\"Lima\"}"}]}}`

	steps := []struct{ method, path, body string }{
		{"POST", "/seed_session", `{}`},
		{"POST", "/get_weather", `{"city":"Paris"}`},
		{"POST", "/get_weather", `{"city":""}`},
		{"POST", "/get_weather", `{"town":1}`},
		{"POST", "/forecast", `{"city":"Oslo","days":2}`},
		{"GET", "/get_weather", ``},
		{"POST", "/nowhere", `{}`},
		{"POST", "/list_cities", `{}`},
		{"mcp", "get_weather", `{"city":"Lima"}`},
		{"POST", "/list_cities", `{}`},
		{"POST", "/verify", trajectory},
	}
	var plainMCP, prefixedMCP = mcpOptions{path: "/mcp"}, mcpOptions{path: prefix + "/mcp"}
	var lastCities string // what the prefixed session's last list_cities answered
	for _, st := range steps {
		if st.method == "mcp" {
			a := call(t, plain.connect(plainMCP), st.path, rawArgs(st.body))
			b := call(t, prefixed.connect(prefixedMCP), st.path, rawArgs(st.body))
			if got, want := resultJSON(t, b), resultJSON(t, a); got != want {
				t.Errorf("tools/call %s under the prefix:\n  %s\nunprefixed:\n  %s", st.path, got, want)
			}
			continue
		}
		a, b := plain.send(st.method, st.path, st.body), prefixed.send(st.method, prefix+st.path, st.body)
		if st.path == "/list_cities" {
			lastCities = string(b.Body)
		}
		if st.path == "/seed_session" {
			for _, o := range []struct {
				r httpResponse
				o *mcpOptions
			}{{a, &plainMCP}, {b, &prefixedMCP}} {
				var seed struct{ MCP seedMetadata }
				if err := json.Unmarshal(o.r.Body, &seed); err != nil || seed.MCP.Headers[tokenHeader] == "" {
					t.Fatalf("seed: %d %s", o.r.Status, o.r.Body)
				}
				o.o.header = http.Header{tokenHeader: {seed.MCP.Headers[tokenHeader]}}
			}
		}
		want := transcript(a)
		if st.path == "/seed_session" {
			// The one difference: the MCP endpoint is under the prefix too.
			want = strings.Replace(want, `"url_path":"/mcp"`, `"url_path":"`+prefix+`/mcp"`, 1)
		}
		if got := transcript(b); got != want {
			t.Errorf("%s %s under the prefix:\n%s\nunprefixed:\n%s", st.method, st.path, got, want)
		}
	}
	// The prefixed session is the one the prefixed requests built: Paris
	// over HTTP, Lima over MCP, as it stood before /verify ended it.
	if lastCities != `{"cities":["Paris","Lima"]}` {
		t.Errorf("prefixed session holds %s", lastCities)
	}
	if r := prefixed.send("POST", prefix+"/list_cities", `{}`); r.Status != http.StatusMisdirectedRequest {
		t.Errorf("after /verify, the prefixed session answered %d %s; want 421, its rollout ended", r.Status, r.Body)
	}
}

// TestRolloutPrefixRefusesBadIDs: an id outside NeMo Gym's pattern (letters,
// digits, dots, dashes, underscores, starting with a letter or digit), or a
// prefix without a path after it, is not a rollout prefix: 404, as without
// mcpdoor.
func TestRolloutPrefixRefusesBadIDs(t *testing.T) {
	s := startExample(t, "weather", exampleConfig("name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:")).server
	for _, path := range []string{
		"/ng-rollout/-x/get_weather",
		"/ng-rollout/a%2Fb/get_weather",
		"/ng-rollout//get_weather",
		"/ng-rollout/../get_weather",
		"/ng-rollout/.x/get_weather",
		"/ng-rollout/a%20b/get_weather",
		"/ng-rollout/" + rolloutID,
		"/ng-rollout/" + rolloutID + "/ng-rollout/again/get_weather",
	} {
		r := s.send("POST", path, `{"city":"Paris"}`)
		if r.Status != http.StatusNotFound || string(r.Body) != "404 page not found\n" {
			t.Errorf("POST %s: %d %q, want 404", path, r.Status, r.Body)
		}
	}
}

// TestRolloutIDSeen: a handler reads the rollout id of a prefixed request
// with rollout.ID, over HTTP and over the MCP endpoint under the
// prefix, dispatched directly or replayed; the request it sees is the
// unprefixed one.
func TestRolloutIDSeen(t *testing.T) {
	cfg := fixtureConfig(t)
	var logs bytes.Buffer
	cfg.Logger = newLogger(&logs)
	sessions, _ := cfg.UseSessions()
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	whoami := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"rollout_id": autoexpose.RolloutID(r),
			"path":       r.URL.Path,
			"uri":        r.RequestURI,
			"pattern":    chi.RouteContext(r.Context()).RoutePattern(),
		})
	}
	r.Post("/whoami", whoami)
	r.With(requireBearer).Post("/whoami_replayed", whoami)
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.Copy(w, r.Body) })
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := inProcess(t, door, door)

	if got := string(s.post("/ng-rollout/r-1/whoami?x=1", `{}`).Body); got != `{"path":"/whoami","pattern":"/whoami","rollout_id":"r-1","uri":"/whoami?x=1"}`+"\n" {
		t.Errorf("prefixed HTTP: %s", got)
	}
	if got := string(s.post("/whoami", `{}`).Body); got != `{"path":"/whoami","pattern":"/whoami","rollout_id":"","uri":"/whoami"}`+"\n" {
		t.Errorf("unprefixed HTTP: %s", got)
	}
	seed := s.post("/ng-rollout/r-2/seed_session", `{}`)
	var meta struct{ MCP seedMetadata }
	json.Unmarshal(seed.Body, &meta)
	cs := s.connect(mcpOptions{path: "/ng-rollout/r-2/mcp", header: http.Header{
		tokenHeader:     {meta.MCP.Headers[tokenHeader]},
		"Authorization": {"Bearer s3cret"},
	}})
	for _, tool := range []string{"whoami", "whoami_replayed"} {
		res := call(t, cs, tool, nil)
		want := `{"path":"/` + tool + `","pattern":"/` + tool + `","rollout_id":"r-2","uri":"/` + tool + `"}`
		got, err := json.Marshal(res.StructuredContent) // the client's map: keys sorted
		if err != nil || res.IsError || string(got) != want {
			t.Errorf("%s over MCP under the prefix: %s", tool, resultJSON(t, res))
		}
	}

	// mcpdoor's own log lines about a prefixed request name its rollout.
	s.post("/ng-rollout/r-3/verify", `not JSON`)
	if !slices.ContainsFunc(strings.Split(logs.String(), "\n"), func(l string) bool {
		return strings.Contains(l, "POST /verify") && strings.Contains(l, "rollout_id=r-3")
	}) {
		t.Errorf("no log line names rollout r-3:\n%s", logs.String())
	}
}
