package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// misroutedText is what a replica that does not hold a session answers to
// each of that session's calls, on both doors.
func misroutedText(sid string) string {
	return "mcpdoor: session " + sid + " is not held by this replica (misrouted, or its state was lost): " +
		"route every request of a session to the replica that seeded it, or give every replica the same session store"
}

// codeMisrouted is the JSON-RPC error code of a misrouted MCP request.
const codeMisrouted = -32003

// notesIn is the argument of the replica server's note tool.
type notesIn struct {
	Note string `json:"note" jsonschema:"what to note"`
}

// notesOut is what the note tool answers: the session's notes so far.
type notesOut struct {
	Notes []string `json:"notes"`
}

// notebook is a rollout server whose state is per session: /seed_session
// empties the session's notes, the tool note adds one, and /verify pays
// reward 1 when the notes are the ones the body expects, in order. Its
// state lives in the process, as a server's does before it uses a store.
type notebook struct {
	mu    sync.Mutex
	notes map[string][]string
}

func (n *notebook) load(r *http.Request) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.notes[session.ID(r)]), nil
}

func (n *notebook) save(r *http.Request, notes []string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes[session.ID(r)] = notes
	return nil
}

// notebookRoutes registers the notebook's routes, its state kept by load
// and save.
func notebookRoutes(r chi.Router, load func(*http.Request) ([]string, error), save func(*http.Request, []string) error) {
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) {
		if err := save(r, []string{}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	r.Method(http.MethodPost, "/note", autoexpose.Handler(func(_ context.Context, r *http.Request, in notesIn) (notesOut, error) {
		notes, err := load(r)
		if err != nil {
			return notesOut{}, err
		}
		notes = append(notes, in.Note)
		return notesOut{Notes: notes}, save(r, notes)
	}, autoexpose.Describe("Note something in the session's notebook.")))
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Expected []string `json:"expected"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		notes, err := load(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		reward := 0.0
		if slices.Equal(notes, body.Expected) {
			reward = 1
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"reward": reward, "notes": notes})
	})
}

// replicaConfig is the config of every replica: the same name and secret.
func replicaConfig() autoexpose.Config {
	return autoexpose.Config{
		Name:               "notebook",
		ExposeToolsOverMCP: true,
		MCP:                autoexpose.MCPConfig{SessionSecret: []string{testSecret}},
		Logger:             slog.New(slog.DiscardHandler),
	}
}

// newNotebookDoor returns the Door of one notebook replica over cfg, its
// state in the process.
func newNotebookDoor(t testing.TB, cfg autoexpose.Config) *autoexpose.Door {
	t.Helper()
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	nb := &notebook{notes: map[string][]string{}}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	notebookRoutes(r, nb.load, nb.save)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return door
}

// An exchange is one request through the balancer, as it recorded it.
type exchange struct {
	rollout int    // the X-Rollout header the test sent
	replica int    // the replica that answered
	path    string // the request's path
	status  int
	body    []byte
}

// A balancer is a round-robin net/http/httputil.ReverseProxy on 127.0.0.1
// in front of replicas, each on a listener of its own. It records every
// exchange.
type balancer struct {
	url      string
	replicas []*httptest.Server
	next     atomic.Uint64
	down     []atomic.Bool // replicas a health check would have taken out

	mu        sync.Mutex
	exchanges []exchange
}

// newBalancer serves each handler on 127.0.0.1 and a round-robin proxy in
// front of them, until the test ends.
func newBalancer(t testing.TB, handlers ...http.Handler) *balancer {
	t.Helper()
	b := &balancer{}
	for _, h := range handlers {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		b.replicas = append(b.replicas, srv)
	}
	b.down = make([]atomic.Bool, len(b.replicas))
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int(b.next.Add(1)-1) % len(b.replicas)
			for b.down[i].Load() {
				i = (i + 1) % len(b.replicas)
			}
			u, _ := url.Parse(b.replicas[i].URL)
			pr.SetURL(u)
			pr.Out.Header.Set("X-Replica", strconv.Itoa(i))
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			replica, _ := strconv.Atoi(resp.Request.Header.Get("X-Replica"))
			rollout, _ := strconv.Atoi(resp.Request.Header.Get("X-Rollout"))
			resp.Header.Set("X-Replica", strconv.Itoa(replica))
			b.mu.Lock()
			b.exchanges = append(b.exchanges, exchange{rollout: rollout, replica: replica, path: resp.Request.URL.Path, status: resp.StatusCode, body: body})
			b.mu.Unlock()
			return nil
		},
		ErrorLog: nil,
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	b.url = front.URL
	return b
}

// kill closes replica i's listener and its connections, mid-rollout, and
// takes it out of the rotation, as a balancer's health check would.
func (b *balancer) kill(i int) {
	b.down[i].Store(true)
	b.replicas[i].CloseClientConnections()
	b.replicas[i].Close()
}

// rolloutHeader adds X-Rollout to every request, so that the balancer can
// tell whose it is.
type rolloutHeader struct {
	base http.RoundTripper
	n    int
}

func (h rolloutHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Rollout", strconv.Itoa(h.n))
	return h.base.RoundTrip(r)
}

// A replicaRollout is one rollout as NeMo Gym's agents run it: seed with
// cookies; tool calls over HTTP with the cookies of the last response
// (simple_agent); tool calls over MCP with the token and no cookie
// (claude_code_agent); /verify with the seed's cookies.
type replicaRollout struct {
	t       testing.TB
	n       int
	base    string
	http    *http.Client // with a cookie jar, for the HTTP door
	token   string
	sid     string // from the seed's Mcpdoor-Session header
	replica int    // that answered the seed
	reward  float64
	verdict string // what went wrong, loudly; "" when the rollout ran whole
	// onKill runs at a step "kill:", with the replica that seeded the
	// rollout.
	onKill func(replica int)
	cs     *mcp.ClientSession // call's, once it connected
}

func newReplicaRollout(t testing.TB, base string, n int) *replicaRollout {
	jar, _ := cookiejar.New(nil)
	tr := rolloutHeader{base: http.DefaultTransport, n: n}
	return &replicaRollout{t: t, n: n, base: base, http: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second}, replica: -1}
}

// post posts body to path with the rollout's cookies, and returns the
// status and body.
func (g *replicaRollout) post(path, body string) (int, []byte, http.Header) {
	g.t.Helper()
	resp, err := g.http.Post(g.base+path, "application/json", strings.NewReader(body))
	if err != nil {
		g.t.Fatalf("rollout %d: POST %s: %v", g.n, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatalf("rollout %d: POST %s: %v", g.n, path, err)
	}
	return resp.StatusCode, b, resp.Header
}

// run plays the rollout: the seed, then the steps (HTTP notes, MCP notes),
// then /verify expecting every note. A step that fails loudly fails the
// rollout (its verdict says which first), and the agent goes on, so that
// every step meets the balancer.
func (g *replicaRollout) run(steps []string) {
	g.t.Helper()
	status, body, h := g.post("/seed_session", `{}`)
	var seeded struct{ MCP seedMetadata }
	if status != http.StatusOK || json.Unmarshal(body, &seeded) != nil {
		g.t.Fatalf("rollout %d: seed: %d %s", g.n, status, body)
	}
	g.token = seeded.MCP.Headers[tokenHeader]
	g.sid = h.Get("Mcpdoor-Session")
	g.replica, _ = strconv.Atoi(h.Get("X-Replica"))

	var cs *mcp.ClientSession
	for _, step := range steps {
		over, note, _ := strings.Cut(step, ":")
		if over == "kill" {
			g.onKill(g.replica)
			continue
		}
		if over == "http" {
			status, body, _ := g.post("/note", fmt.Sprintf(`{"note":%q}`, note))
			if status != http.StatusOK {
				g.fail(fmt.Sprintf("POST /note: %d %s", status, bytes.TrimSpace(body)))
			}
			continue
		}
		if cs == nil {
			var err error
			if cs, err = g.connect(); err != nil {
				g.fail("connecting over MCP: " + err.Error())
				continue // the next MCP step connects again
			}
			defer cs.Close()
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]string{"note": note}})
		if err != nil {
			g.fail("tools/call note: " + err.Error())
		} else if res.IsError {
			g.fail(fmt.Sprintf("tools/call note: isError %v", res.Content))
		}
	}
	var want []string
	for _, step := range steps {
		if over, note, _ := strings.Cut(step, ":"); over != "kill" {
			want = append(want, note)
		}
	}
	exp, _ := json.Marshal(map[string]any{"expected": want})
	status, body, _ = g.post("/verify", string(exp))
	if status != http.StatusOK {
		g.fail(fmt.Sprintf("POST /verify: %d %s", status, bytes.TrimSpace(body)))
		return
	}
	var verdict struct{ Reward float64 }
	if err := json.Unmarshal(body, &verdict); err != nil {
		g.t.Fatalf("rollout %d: /verify: %s", g.n, body)
	}
	g.reward = verdict.Reward
}

// fail records what failed the rollout loudly, the first thing only.
func (g *replicaRollout) fail(why string) {
	if g.verdict == "" {
		g.verdict = why
	}
}

// connect opens a go-sdk client session with the token alone, no cookie.
func (g *replicaRollout) connect() (*mcp.ClientSession, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &headerTransport{
		base: rolloutHeader{base: http.DefaultTransport, n: g.n}, header: http.Header{tokenHeader: {g.token}}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "gym-agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.base + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true}, nil)
}

// tally sorts the balancer's exchanges of the rollouts: those answered by
// the replica that seeded their rollout, those another replica refused as
// misrouted (421; on /mcp, with a JSON-RPC error -32003 in the body), and
// those another replica answered otherwise: silently, against state it
// does not hold.
func tally(t testing.TB, b *balancer, rollouts []*replicaRollout) (held, refused int, silent []string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ex := range b.exchanges {
		g := rollouts[ex.rollout]
		if ex.replica == g.replica {
			held++
			if ex.status == http.StatusMisdirectedRequest {
				t.Errorf("rollout %d: %s on the replica that seeded it: %d %s", g.n, ex.path, ex.status, ex.body)
			}
			continue
		}
		if ex.status != http.StatusMisdirectedRequest {
			silent = append(silent, fmt.Sprintf("rollout %d: %s answered %d by replica %d (seeded on %d): %.200s", g.n, ex.path, ex.status, ex.replica, g.replica, ex.body))
			continue
		}
		refused++
		want := misroutedText(g.sid) + "\n"
		if ex.path == "/mcp" {
			var rpc struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			json.Unmarshal(ex.body, &rpc)
			if rpc.Error.Code != codeMisrouted || rpc.Error.Message != misroutedText(g.sid) {
				t.Errorf("rollout %d: misrouted /mcp answered %s; want error %d %q", g.n, ex.body, codeMisrouted, misroutedText(g.sid))
			}
		} else if string(ex.body) != want {
			t.Errorf("rollout %d: misrouted %s answered %q; want %q", g.n, ex.path, ex.body, want)
		}
	}
	return held, refused, silent
}

// gymSteps are a rollout's tool calls, over both doors.
var gymSteps = []string{"http:first", "mcp:second", "http:third", "mcp:fourth"}

// TestReplicasMisroutedLoud: three replicas with the same secret, each
// with its own in-memory store, behind a round-robin balancer and no
// affinity. Every call a replica gets for a session it does not hold is
// refused (421, and -32003 over MCP) with the misrouted message; none is
// answered against fresh state.
func TestReplicasMisroutedLoud(t *testing.T) {
	b := newBalancer(t, newNotebookDoor(t, replicaConfig()), newNotebookDoor(t, replicaConfig()), newNotebookDoor(t, replicaConfig()))
	var rollouts []*replicaRollout
	for n := range 6 {
		g := newReplicaRollout(t, b.url, n)
		rollouts = append(rollouts, g)
		g.run(gymSteps)
		if g.verdict == "" && g.reward != 1 {
			t.Errorf("rollout %d ran whole, seeded on replica %d, and /verify paid %v: a silent wrong reward", n, g.replica, g.reward)
		}
	}
	held, refused, silent := tally(t, b, rollouts)
	t.Logf("%d exchanges on the seeding replica, %d misrouted and refused, %d silent", held, refused, len(silent))
	if len(silent) > 0 {
		t.Errorf("%d calls answered by a replica that does not hold their session:\n%s", len(silent), strings.Join(silent, "\n"))
	}
	if refused == 0 {
		t.Error("no call was misrouted: the balancer did not spread the rollouts")
	}
}

// TestMisroutedBothDoors: a replica that does not hold a session — another
// replica's, or its own from before a restart, its in-memory store
// emptied — refuses the session's every request alike: on the HTTP door
// (a tool route, /verify) with 421 and the text; on /mcp (tools/call,
// tools/list; the fast path and the go-sdk alike) with 421 and a JSON-RPC
// error -32003 of the same text, for the request's id.
func TestMisroutedBothDoors(t *testing.T) {
	a := serve(t, newNotebookDoor(t, replicaConfig()))
	seeded, meta := a.seedSession(`{}`)
	tok, sid := meta.Headers[tokenHeader], seeded.Header.Get("Mcpdoor-Session")
	cookie := seeded.Header.Get("Set-Cookie")
	if tok == "" || sid == "" || !strings.HasPrefix(tok, sid+".") {
		t.Fatalf("seed: %d %v %s", seeded.Status, seeded.Header, seeded.Body)
	}
	if r := a.post("/note", `{"note":"held"}`); r.Status != http.StatusOK {
		t.Fatalf("the seeding replica refused its own session: %d %s", r.Status, r.Body)
	}
	fastOff := replicaConfig()
	fastOff.MCP.DisableFastPath = true
	// The replica restarted: the same config, a fresh in-memory store.
	for name, cfg := range map[string]autoexpose.Config{"another replica": replicaConfig(), "another replica, fast path off": fastOff, "the seeding replica, restarted": replicaConfig()} {
		t.Run(name, func(t *testing.T) {
			b := serve(t, newNotebookDoor(t, cfg))
			text := misroutedText(sid)
			for _, path := range []string{"/note", "/verify"} {
				r := b.post(path, `{"note":"lost"}`, "Cookie", cookie)
				if r.Status != http.StatusMisdirectedRequest || string(r.Body) != text+"\n" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
					t.Errorf("POST %s with the cookie: %d %q %v; want 421 %q", path, r.Status, r.Body, r.Header, text)
				}
			}
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"note","arguments":{"note":"lost"}}}`,
				`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{}}`,
			} {
				r := b.rawMCP(t, body, raw{header: []string{tokenHeader, tok}})
				id := strings.TrimSuffix(strings.TrimPrefix(body, `{"jsonrpc":"2.0","id":`), body[strings.Index(body, `,"method"`):])
				want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32003,"message":"` + text + `"}}`
				if r.Status != http.StatusMisdirectedRequest || string(r.Body) != want || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("MCP %s with the token: %d %s; want 421 %s", body, r.Status, r.Body, want)
				}
			}
			// A token of a session this replica holds is served.
			_, own := b.newClient().seedSession(`{}`)
			if r := b.rawMCP(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"mine"}}}`, raw{header: []string{tokenHeader, own.Headers[tokenHeader]}}); r.Status != http.StatusOK {
				t.Errorf("a held session's call: %d %s", r.Status, r.Body)
			}
		})
	}
}

// newStoredNotebookDoor returns the Door of one notebook replica whose
// state is in its session store (session.Load and Save), cfg.Store.
func newStoredNotebookDoor(t testing.TB, cfg autoexpose.Config) *autoexpose.Door {
	t.Helper()
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	notebookRoutes(r, func(r *http.Request) ([]string, error) {
		var notes []string
		_, err := session.Load(r, "notes", &notes)
		return notes, err
	}, func(r *http.Request, notes []string) error {
		return session.Save(r, "notes", notes)
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { door.Close() })
	return door
}

// redisReplicas returns n notebook replicas sharing the Redis rs, each
// with a client of its own, as n processes would.
func redisReplicas(t testing.TB, rs *redisServer, n int) []http.Handler {
	var doors []http.Handler
	for range n {
		client := redis.NewClient(&redis.Options{Addr: rs.Addr})
		t.Cleanup(func() { client.Close() })
		cfg := replicaConfig()
		cfg.Store = redisstore.New(client, "notebook")
		doors = append(doors, newStoredNotebookDoor(t, cfg))
	}
	return doors
}

// TestReplicasSharedStore: three replicas sharing one Redis behind the
// round-robin balancer, with no affinity: every rollout runs whole through
// both doors and /verify pays 1; no call is refused. One replica killed in
// the middle of a rollout loses nothing: the balancer sends the rest of the
// rollout to the others, which hold its session and its state.
func TestReplicasSharedStore(t *testing.T) {
	rs := startRedis(t)
	b := newBalancer(t, redisReplicas(t, rs, 3)...)
	const whole = 6
	for n := range whole {
		g := newReplicaRollout(t, b.url, n)
		g.run(gymSteps)
		if g.verdict != "" || g.reward != 1 {
			t.Errorf("rollout %d: %q, reward %v; want it whole, reward 1", n, g.verdict, g.reward)
		}
	}
	killed := newReplicaRollout(t, b.url, whole)
	killed.onKill = b.kill
	killed.run([]string{"http:first", "mcp:second", "kill:", "http:third", "mcp:fourth", "http:fifth"})
	if killed.verdict != "" || killed.reward != 1 {
		t.Errorf("the rollout whose replica was killed: %q, reward %v; want it whole, reward 1", killed.verdict, killed.reward)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	replicas := map[int]bool{}
	for _, ex := range b.exchanges {
		replicas[ex.replica] = true
		if ex.status == http.StatusMisdirectedRequest {
			t.Errorf("rollout %d: %s refused by replica %d with a shared store: %s", ex.rollout, ex.path, ex.replica, ex.body)
		}
	}
	if len(replicas) != 3 {
		t.Errorf("the balancer used replicas %v, want all 3", replicas)
	}
}

// TestReplicasExamplesRedis: three replicas of each example, each its own
// process with MCPDOOR_REDIS_ADDR naming one shared Redis, behind the
// round-robin balancer: the workplace's scenarios and the weather's
// rollouts run whole through both doors (tool calls alternate between HTTP
// with cookies and MCP with the token), and /verify pays 1.
func TestReplicasExamplesRedis(t *testing.T) {
	rs := startRedis(t)
	env := []string{"MCPDOOR_REDIS_ADDR=" + rs.Addr}
	start := func(name, yaml string) *balancer {
		var replicas []http.Handler
		for range 3 {
			e := startExampleEnv(t, name, exampleConfig(yaml), env)
			u, _ := url.Parse(e.url)
			replicas = append(replicas, httputil.NewSingleHostReverseProxy(u))
		}
		return newBalancer(t, replicas...)
	}
	t.Run("workplace", func(t *testing.T) {
		b := start("workplace", "name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:")
		for n, sol := range workplaceSolutions(t) {
			g := newReplicaRollout(t, b.url, n)
			seed, _ := json.Marshal(map[string]string{"scenario": sol.Scenario})
			g.seed(string(seed))
			for i, c := range sol.Calls {
				g.call(i%2 == 1, c.Tool, c.Arguments)
			}
			status, body, _ := g.post("/verify", `{}`)
			var v struct{ Reward float64 }
			json.Unmarshal(body, &v)
			if g.verdict != "" || status != http.StatusOK || v.Reward != 1 {
				t.Errorf("scenario %s: %q; /verify %d %s", sol.Scenario, g.verdict, status, body)
			}
			g.close()
		}
	})
	t.Run("weather", func(t *testing.T) {
		b := start("weather", "name: example_mcp_weather\nexpose_tools_over_mcp: true\nmcp:")
		for n := range 6 {
			g := newReplicaRollout(t, b.url, n)
			g.seed(`{}`)
			for i, city := range []string{"Paris", "Lima", "Oslo", "Kyoto"} {
				g.call(i%2 == 1, "get_weather", map[string]any{"city": city})
			}
			status, body, _ := g.post("/list_cities", `{}`)
			if want := `{"cities":["Paris","Lima","Oslo","Kyoto"]}`; status != http.StatusOK || strings.TrimSpace(string(body)) != want {
				t.Errorf("rollout %d: list_cities %d %s, want %s", n, status, body, want)
			}
			// A call the rollout made over MCP (mcp.rollout.claims checks it).
			traj := `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__example_mcp_weather__get_weather","arguments":"{\"city\":\"Lima\"}"}]}}`
			status, body, _ = g.post("/verify", traj)
			var v struct{ Reward float64 }
			json.Unmarshal(body, &v)
			if g.verdict != "" || status != http.StatusOK || v.Reward != 1 {
				t.Errorf("rollout %d: %q; /verify %d %s", n, g.verdict, status, body)
			}
			g.close()
		}
	})
}

// seed posts body to /seed_session and keeps the token and the session.
func (g *replicaRollout) seed(body string) {
	g.t.Helper()
	status, b, h := g.post("/seed_session", body)
	var seeded struct{ MCP seedMetadata }
	if status != http.StatusOK || json.Unmarshal(b, &seeded) != nil || seeded.MCP.Headers[tokenHeader] == "" {
		g.t.Fatalf("rollout %d: seed: %d %s", g.n, status, b)
	}
	g.token, g.sid = seeded.MCP.Headers[tokenHeader], h.Get("Mcpdoor-Session")
	g.replica, _ = strconv.Atoi(h.Get("X-Replica"))
}

// call calls tool with args, over MCP (with the token) or over HTTP (with
// the cookies), recording a loud failure in the verdict.
func (g *replicaRollout) call(overMCP bool, tool string, args map[string]any) {
	g.t.Helper()
	if !overMCP {
		body, _ := json.Marshal(args)
		if status, b, _ := g.post("/"+tool, string(body)); status != http.StatusOK {
			g.fail(fmt.Sprintf("POST /%s: %d %s", tool, status, bytes.TrimSpace(b)))
		}
		return
	}
	if g.cs == nil {
		cs, err := g.connect()
		if err != nil {
			g.fail("connecting over MCP: " + err.Error())
			return
		}
		g.cs = cs
	}
	res, err := g.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil:
		g.fail(fmt.Sprintf("tools/call %s: %v", tool, err))
	case res.IsError:
		g.fail(fmt.Sprintf("tools/call %s: isError %s", tool, resultJSON(g.t, res)))
	}
}

// close closes the rollout's MCP session, if it opened one.
func (g *replicaRollout) close() {
	if g.cs != nil {
		g.cs.Close()
	}
}

// TestWorkplaceNoLostUpdate: parallel tool calls of one rollout (Claude
// Code runs them so) that each change the office lose nothing, with one
// workplace process, and with two processes sharing one Redis behind the
// round-robin balancer: 20 concurrent crm_add_note calls over MCP, each
// answered 200, leave 20 more notes on the record.
func TestWorkplaceNoLostUpdate(t *testing.T) {
	rs := startRedis(t)
	env := []string{"MCPDOOR_REDIS_ADDR=" + rs.Addr}
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d processes", n), func(t *testing.T) {
			var replicas []http.Handler
			for range n {
				e := startExampleEnv(t, "workplace", exampleConfig("name: workplace_assistant\nexpose_tools_over_mcp: true\nmcp:"), env)
				u, _ := url.Parse(e.url)
				replicas = append(replicas, httputil.NewSingleHostReverseProxy(u))
			}
			b := newBalancer(t, replicas...)
			g := newReplicaRollout(t, b.url, 0)
			g.seed(`{"scenario":"qualify-stale-lead"}`)
			agent := dialServer(t, b.url)
			callTool := func(id int, tool, args string) httpResponse {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
				return agent.rawMCP(t, body, raw{header: []string{tokenHeader, g.token}})
			}
			notes := func() []string {
				r := callTool(0, "crm_get_customer", `{"id":"C3001"}`)
				var res struct {
					Result struct {
						StructuredContent struct{ Notes []string } `json:"structuredContent"`
					} `json:"result"`
				}
				if err := json.Unmarshal(r.Body, &res); r.Status != http.StatusOK || err != nil {
					t.Fatalf("crm_get_customer: %d %s", r.Status, r.Body)
				}
				return res.Result.StructuredContent.Notes
			}
			before := notes()
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					r := callTool(i+1, "crm_add_note", fmt.Sprintf(`{"id":"C3001","note":"parallel %d"}`, i))
					if r.Status != http.StatusOK || bytes.Contains(r.Body, []byte(`"isError":true`)) {
						t.Errorf("crm_add_note %d: %d %s", i, r.Status, r.Body)
					}
				})
			}
			wg.Wait()
			after := notes()
			var lost []string
			for i := range 20 {
				if note := fmt.Sprintf("parallel %d", i); !slices.Contains(after, note) {
					lost = append(lost, note)
				}
			}
			if len(lost) > 0 || len(after) != len(before)+20 {
				t.Errorf("20 answered crm_add_note calls: %d notes before, %d after; lost %q", len(before), len(after), lost)
			}
		})
	}
}
