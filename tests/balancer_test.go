package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// The replica tests run the examples as NeMo Gym runs a resources server
// that scales out: 3 replicas (the examples' binaries, each on its own
// port, the same session secret on each) behind a real HAProxy or nginx
// with a configuration of docs/replicas, and whole rollouts through it as
// Gym's agents play them (gym_agents_test.go): claude_code_agent's (seed
// with cookies, MCP calls with the token only, /verify with the seed's
// cookies) and simple_agent's (every call over HTTP with the cookies of the
// previous response). Each rollout's /verify must pay reward 1.

// replicaCount is how many replicas each test runs.
const replicaCount = 3

// startReplicas starts n replicas of the example ex, with extra appended
// to its mcp block, and returns them and their host:port addresses.
func startReplicas(t *testing.T, ex gymExample, extra string, n int) ([]*example, []string) {
	t.Helper()
	return startReplicasEnv(t, ex, extra, n, nil)
}

// startReplicasEnv is startReplicas with env added to each replica's
// environment: MCPDOOR_REDIS_ADDR=<host:port> gives them one store.
func startReplicasEnv(t *testing.T, ex gymExample, extra string, n int, env []string) ([]*example, []string) {
	t.Helper()
	var reps []*example
	var addrs []string
	for range n {
		e := startExampleEnv(t, ex.name, exampleConfig(ex.config+extra), env)
		reps = append(reps, e)
		addrs = append(addrs, strings.TrimPrefix(e.url, "http://"))
	}
	return reps, addrs
}

// balanced is a client of the balancer, as a Gym agent's ServerClient is.
func balanced(t *testing.T, lb *realBalancer, prefix string) *gymAgent {
	return newGymAgent(t, &server{t: t, url: lb.url}, prefix)
}

// TestBalancerAffinity: behind HAProxy's stick table of
// docs/replicas/haproxy-affinity.cfg, on the session id mcpdoor makes
// readable (the seed's Mcpdoor-Session header, the token's and the
// cookie's prefix), with no shared store, every rollout of weather and
// workplace stays on the replica that seeded it, through both doors, with
// and without Gym's /ng-rollout/ prefix: every one pays reward 1.
func TestBalancerAffinity(t *testing.T) {
	t.Parallel()
	for _, ex := range gymExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			_, addrs := startReplicas(t, ex, "", replicaCount)
			lb := startHAProxy(t, "haproxy-affinity.cfg", addrs)
			wholeRollouts(t, lb, ex)
			// The rollouts were spread: round robin placed the seeds on
			// more than one replica.
			if servers := seedServers(lb.logged(t)); len(servers) < 2 {
				t.Errorf("every seed went to %v; round robin should have spread them", servers)
			}
		})
	}
}

// haproxyLine is a request line of docs/replicas' log-format: status,
// retries (+ when redispatched), server, method, path.
var haproxyLine = regexp.MustCompile(`(?m)^(\d{3}) (\+?\d+) (\S+) (\S+) (\S+)$`)

// seedServers returns the servers HAProxy's log shows the seeds answered by.
func seedServers(log string) map[string]int {
	servers := make(map[string]int)
	for _, m := range haproxyLine.FindAllStringSubmatch(log, -1) {
		if strings.HasSuffix(m[5], "/seed_session") {
			servers[m[3]]++
		}
	}
	return servers
}

// TestBalancerExclusive: three exclusive replicas behind
// docs/replicas/haproxy-exclusive.cfg. A seed that reaches a replica
// serving another rollout gets 503 with Retry-After; HAProxy retries it on
// another replica, where the rollout runs whole. Rollouts seeded while
// others are held land on the free replicas, and each pays reward 1.
func TestBalancerExclusive(t *testing.T) {
	t.Parallel()
	ex := gymExamples(t)[0]
	ro := ex.rollouts[0]
	reps, addrs := startReplicas(t, ex, "\n  exclusive: true", replicaCount)
	lb := startHAProxy(t, "haproxy-exclusive.cfg", addrs)

	// A busy replica's own answer to a seed.
	held := mcpAgentSeed(t, balanced(t, lb, ""), lb.url, ro.seed)
	busy := 0
	for _, e := range reps {
		resp, err := http.Post(e.url+"/seed_session", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode == http.StatusServiceUnavailable {
			busy++
			if got := resp.Header.Get("Retry-After"); got != "1" || body != busySeedText {
				t.Errorf("a busy replica's seed: Retry-After %q, %q; want 1, %q", got, body, busySeedText)
			}
			continue
		}
		// A free replica took it: let it go.
		verifyWith(t, e.url, resp.Cookies())
	}
	if busy != 1 {
		t.Errorf("%d replicas answered a seed 503, want 1 (the held rollout's)", busy)
	}
	if v := held.finish(t, "", ro.calls, nil); v.Reward != 1 {
		t.Errorf("the held rollout: reward %v, want 1", v.Reward)
	}

	// Rounds of four seeds: the first three take the three replicas
	// (round robin), the second rollout ends, and the fourth seed reaches
	// the first one's replica, still in the rotation (its next health
	// check is up to 2 s away), gets 503, and HAProxy retries it on the
	// free one. A round whose health check ran first drains the busy
	// replica instead, and retries nothing; a few rounds see the retry.
	for round := range 5 {
		lb.waitUp(t, "r1", "r2", "r3")
		var seeded []*seededRollout
		for range 3 {
			seeded = append(seeded, mcpAgentSeed(t, balanced(t, lb, ""), lb.url, ro.seed))
		}
		if v := seeded[1].finish(t, "", ro.calls, nil); v.Reward != 1 {
			t.Errorf("round %d, second rollout: reward %v, want 1", round, v.Reward)
		}
		lb.waitUp(t, lb.seedServer(t, 1+4*round+1)) // its replica, had its check drained it
		seeded = append(seeded, mcpAgentSeed(t, balanced(t, lb, ""), lb.url, ro.seed))
		for i, s := range seeded {
			if i == 1 {
				continue
			}
			if v := s.finish(t, "", ro.calls, nil); v.Reward != 1 {
				t.Errorf("round %d, rollout %d: reward %v, want 1", round, i, v.Reward)
			}
		}
		if retried(lb.logged(t)) > 0 {
			return
		}
	}
	t.Errorf("no seed was retried in 5 rounds:\n%s", lb.Log())
}

// retried counts the seeds HAProxy's log shows answered 200 after a
// retry on another replica.
func retried(log string) int {
	n := 0
	for _, m := range haproxyLine.FindAllStringSubmatch(log, -1) {
		if m[1] == "200" && m[2] != "0" && strings.HasSuffix(m[5], "/seed_session") {
			n++
		}
	}
	return n
}

// verifyWith posts an empty /verify to base with cookies: the rollout ends.
func verifyWith(t *testing.T, base string, cookies []*http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/verify", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp)
}

// busySeedText is an exclusive replica's 503 to a seed while it serves
// another rollout.
const busySeedText = "mcpdoor: this server is exclusive (mcp.exclusive) and serves another rollout: " +
	"retry /seed_session on another replica, or here once that rollout ends\n"

// readAll reads and closes resp's body.
func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serverState is HAProxy's log line of a server's check changing its state.
var serverState = regexp.MustCompile(`Server replicas/(\S+) is (UP|DOWN)`)

// waitUp waits, at most 30 s, until HAProxy has every one of servers in
// the rotation: its check has not last found it DOWN.
func (lb *realBalancer) waitUp(t *testing.T, servers ...string) {
	t.Helper()
	for range 3000 {
		state := make(map[string]string)
		for _, m := range serverState.FindAllStringSubmatch(lb.Log(), -1) {
			state[m[1]] = m[2]
		}
		up := true
		for _, s := range servers {
			up = up && state[s] != "DOWN"
		}
		if up {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("HAProxy does not have %v back after 30s:\n%s", servers, lb.Log())
}

// seedServer returns the server of the i-th seed HAProxy answered
// (from 0), waiting (at most 30 s) for its log line. It sends no request
// of its own (see logged), which would take a turn of the round robin.
func (lb *realBalancer) seedServer(t *testing.T, i int) string {
	t.Helper()
	for range 3000 {
		var servers []string
		for _, m := range haproxyLine.FindAllStringSubmatch(lb.Log(), -1) {
			if strings.HasSuffix(m[5], "/seed_session") {
				servers = append(servers, m[3])
			}
		}
		if i < len(servers) {
			return servers[i]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("HAProxy has not logged seed %d after 30s:\n%s", i, lb.Log())
	return ""
}

// TestBalancerDocsShowTestedConfigs: every configuration block of
// docs/replicas.md is part of a file of docs/replicas, which the tests
// run: the page shows what is tested.
func TestBalancerDocsShowTestedConfigs(t *testing.T) {
	root := nodeclient.RepoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "replicas.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "replicas", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("docs/replicas: %v %v", files, err)
	}
	var configs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, string(b))
	}
	blocks := regexp.MustCompile("(?s)```(haproxy|nginx)\n(.*?)```").FindAllStringSubmatch(string(page), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/replicas.md shows no configuration")
	}
	for _, b := range blocks {
		if !slices.ContainsFunc(configs, func(c string) bool { return strings.Contains(c, b[2]) }) {
			t.Errorf("docs/replicas.md shows a %s block that no file of docs/replicas holds:\n%s", b[1], b[2])
		}
	}
}

// loudRollout plays ro through lb as Gym's agent of door ("mcp":
// claude_code_agent, "http": simple_agent) does, going on past a refused
// request so that every request of the rollout meets the balancer; after
// its first call, it calls between (nil: nothing). It returns the reward,
// or why the rollout failed loudly ("" for none).
func loudRollout(t *testing.T, lb *realBalancer, door string, ro gymRollout, between func()) (reward float64, failed string) {
	t.Helper()
	a := balanced(t, lb, "")
	fail := func(why string) {
		if failed == "" {
			failed = why
		}
	}
	status, body := a.post("/seed_session", ro.seed)
	var seeded struct {
		MCP seedMetadata `json:"mcp"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &seeded) != nil {
		t.Fatalf("seed: %d %s", status, body)
	}
	seedCookies := a.cookies
	names := func(tool string) string { return tool }
	if door == "mcp" {
		names = func(tool string) string { return "mcp__" + seeded.MCP.ServerName + "__" + tool }
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		sr := &seededRollout{a: a, seed: ro.seed, meta: seeded.MCP, endpoint: lb.url + seeded.MCP.URLPath}
		header := http.Header{}
		for k, v := range sr.meta.Headers {
			header.Set(k, v)
		}
		hc := &http.Client{Timeout: 30 * time.Second, Transport: &headerTransport{base: http.DefaultTransport, header: header}}
		defer hc.CloseIdleConnections()
		client := mcp.NewClient(&mcp.Implementation{Name: "gym-agent", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: sr.endpoint, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
		if err != nil {
			fail("connecting: " + err.Error())
		} else {
			defer cs.Close()
			for i, c := range ro.calls {
				if i == 1 && between != nil {
					between()
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
				switch {
				case err != nil:
					fail("tools/call " + c.Tool + ": " + err.Error())
				case res.IsError:
					fail("tools/call " + c.Tool + ": " + resultJSON(t, res))
				}
			}
		}
	} else {
		for i, c := range ro.calls {
			if i == 1 && between != nil {
				between()
			}
			if status, body := a.post("/"+c.Tool, c.Arguments); status != http.StatusOK {
				fail(fmt.Sprintf("POST /%s: %d %s", c.Tool, status, body))
				a.cookies = seedCookies // the refusal's response set none
			}
		}
	}
	verify := trajectory(ro.calls, names)
	for k, v := range ro.seed {
		verify[k] = v
	}
	if door == "mcp" {
		a.cookies = seedCookies
	}
	status, body = a.post("/verify", verify)
	if status != http.StatusOK {
		fail(fmt.Sprintf("POST /verify: %d %s", status, body))
		return 0, failed
	}
	var v verifyReply
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("verify: %v: %s", err, body)
	}
	return v.Reward, failed
}

// routed sorts HAProxy's log lines from the from-th on, one rollout's: the
// requests the replica that answered its seed served, those another
// replica refused as misrouted (421), and those another replica answered
// otherwise, silently.
func routed(t *testing.T, log string, from int) (held, refused int, silent []string, next int) {
	t.Helper()
	lines := haproxyLine.FindAllStringSubmatch(log, -1)
	seeder := ""
	for _, m := range lines[from:] {
		if m[3] == "<NOSRV>" || strings.HasPrefix(m[5], markPath) {
			continue
		}
		switch {
		case strings.HasSuffix(m[5], "/seed_session"):
			seeder = m[3]
			held++
		case m[3] == seeder:
			held++
			if m[1] == "421" {
				t.Errorf("%s %s refused as misrouted by the replica that seeded it", m[4], m[5])
			}
		case m[1] == "421":
			refused++
		default:
			silent = append(silent, m[0])
		}
	}
	return held, refused, silent, len(lines)
}

// TestBalancerRoundRobinLoud: three replicas of weather and of workplace,
// each with its own memory store, behind HAProxy's round robin
// (docs/replicas/haproxy-roundrobin.cfg) with no affinity and no shared
// store. Every request that reaches another replica than its seed's is
// refused with 421 (-32003 over MCP), on both doors; none is answered
// against fresh state, and a rollout that meets one fails loudly.
func TestBalancerRoundRobinLoud(t *testing.T) {
	t.Parallel()
	for _, ex := range gymExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			_, addrs := startReplicas(t, ex, "", replicaCount)
			lb := startHAProxy(t, "haproxy-roundrobin.cfg", addrs)
			var held, refused, failed int
			mark := 0
			for _, door := range []string{"mcp", "http"} {
				for _, ro := range ex.rollouts {
					reward, why := loudRollout(t, lb, door, ro, nil)
					h, r, silent, next := routed(t, lb.logged(t), mark)
					mark = next
					held, refused = held+h, refused+r
					for _, s := range silent {
						t.Errorf("%s %s: answered by another replica than its seed's: %s", door, ro.name, s)
					}
					switch {
					case why != "":
						failed++
						if !strings.Contains(why, "421") && !strings.Contains(why, "Misdirected") && !strings.Contains(why, "not held by this replica") {
							t.Errorf("%s %s failed, but not as misrouted: %s", door, ro.name, why)
						}
					case r > 0:
						t.Errorf("%s %s: %d requests refused, and the rollout did not fail", door, ro.name, r)
					case reward != 1:
						t.Errorf("%s %s ran whole on one replica, reward %v, want 1", door, ro.name, reward)
					}
				}
			}
			t.Logf("%s: %d requests on their seed's replica, %d refused as misrouted, %d rollouts failed loudly, 0 silent",
				ex.name, held, refused, failed)
			if refused == 0 {
				t.Errorf("round robin refused nothing: every request went to its seed's replica?\n%s", lb.Log())
			}
		})
	}
}

// markPath is the path of the requests logged sends.
const markPath = "/logged-mark-"

// logged returns HAProxy's log once it holds every request answered so
// far: it sends a request of its own, and waits (at most 30 s) for its
// line, which HAProxy writes after those of the requests that ended first.
func (lb *realBalancer) logged(t *testing.T) string {
	t.Helper()
	lb.marks++
	path := markPath + strconv.Itoa(lb.marks)
	resp, err := http.Get(lb.url + path)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp)
	for range 3000 {
		if log := lb.Log(); strings.Contains(log, " "+path+"\n") {
			return log
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("HAProxy has not logged %s after 30s:\n%s", path, lb.Log())
	return ""
}

// TestBalancerReplicaLost: a replica killed in the middle of a rollout,
// behind HAProxy's stick table (docs/replicas/haproxy-affinity.cfg), with
// no shared store. HAProxy sends the rest of the rollout to another
// replica, which never held its session: every request is refused with
// 421 (-32003 over MCP), and the rollout fails loudly, on both doors; none
// runs against fresh state.
func TestBalancerReplicaLost(t *testing.T) {
	t.Parallel()
	ex := gymExamples(t)[0]
	for _, door := range []string{"mcp", "http"} {
		t.Run(door, func(t *testing.T) {
			reps, addrs := startReplicas(t, ex, "", replicaCount)
			lb := startHAProxy(t, "haproxy-affinity.cfg", addrs)
			kill := func() {
				seeder := lb.seedServer(t, 0)
				n, err := strconv.Atoi(strings.TrimPrefix(seeder, "r"))
				if err != nil || n < 1 || n > len(reps) {
					t.Fatalf("the seed's server %q", seeder)
				}
				reps[n-1].cmd.Process.Kill()
				reps[n-1].cmd.Process.Wait()
			}
			reward, why := loudRollout(t, lb, door, ex.rollouts[0], kill)
			held, refused, silent, _ := routed(t, lb.logged(t), 0)
			for _, s := range silent {
				t.Errorf("answered by another replica than its seed's: %s", s)
			}
			if why == "" || !strings.Contains(why, "not held by this replica") && !strings.Contains(why, "Misdirected") {
				t.Errorf("the rollout ran on (reward %v); want it failed as misrouted: %q", reward, why)
			}
			if refused == 0 {
				t.Errorf("nothing refused after the replica was killed:\n%s", lb.Log())
			}
			t.Logf("%d requests on the seed's replica, %d refused as misrouted after it was killed, 0 silent: %s", held, refused, why)
		})
	}
}

// sharedStore starts a Redis for the test and returns the environment
// that points the examples' replicas at it.
func sharedStore(t *testing.T) []string {
	t.Helper()
	return []string{"MCPDOOR_REDIS_ADDR=" + startRedis(t).Addr}
}

// wholeRollouts plays every rollout of ex through lb over both doors,
// with and without Gym's prefix, and wants reward 1 from each.
func wholeRollouts(t *testing.T, lb *realBalancer, ex gymExample) {
	t.Helper()
	for _, prefix := range []string{"", gymPrefix} {
		for _, ro := range ex.rollouts {
			if v := mcpAgentRollout(t, balanced(t, lb, prefix), lb.url, "", ro.seed, ro.calls, nil); v.Reward != 1 {
				t.Errorf("MCP door, %s%s: reward %v, want 1", prefix, ro.name, v.Reward)
			}
			if v := simpleAgentRollout(t, balanced(t, lb, prefix), ro.seed, ro.calls, nil); v.Reward != 1 {
				t.Errorf("HTTP door, %s%s: reward %v, want 1", prefix, ro.name, v.Reward)
			}
		}
	}
}

// TestBalancerRoundRobinStore: three replicas of weather and of workplace
// sharing one Redis, behind HAProxy's plain round robin
// (docs/replicas/haproxy-roundrobin.cfg): each request goes to the next
// replica, and every rollout, over either door, runs whole.
func TestBalancerRoundRobinStore(t *testing.T) {
	t.Parallel()
	for _, ex := range gymExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			_, addrs := startReplicasEnv(t, ex, "", replicaCount, sharedStore(t))
			lb := startHAProxy(t, "haproxy-roundrobin.cfg", addrs)
			wholeRollouts(t, lb, ex)
			servers := make(map[string]int)
			for _, m := range haproxyLine.FindAllStringSubmatch(lb.logged(t), -1) {
				if m[1] == "421" {
					t.Errorf("refused as misrouted with a shared store: %s", m[0])
				}
				servers[m[3]]++
			}
			if len(servers) < replicaCount {
				t.Errorf("requests by server %v; round robin should have used all %d", servers, replicaCount)
			}
		})
	}
}

// TestBalancerNginxStore: the same behind nginx's round robin
// (docs/replicas/nginx.conf): every rollout runs whole.
func TestBalancerNginxStore(t *testing.T) {
	t.Parallel()
	for _, ex := range gymExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			_, addrs := startReplicasEnv(t, ex, "", replicaCount, sharedStore(t))
			lb := startNginx(t, "nginx.conf", addrs)
			wholeRollouts(t, lb, ex)
		})
	}
}

// TestBalancerReplicaLostStore: a replica killed in the middle of a
// rollout, behind HAProxy's round robin, with a shared store: the rollout
// carries on on the others and pays reward 1, on both doors.
func TestBalancerReplicaLostStore(t *testing.T) {
	t.Parallel()
	for _, ex := range gymExamples(t) {
		for _, door := range []string{"mcp", "http"} {
			t.Run(ex.name+"/"+door, func(t *testing.T) {
				reps, addrs := startReplicasEnv(t, ex, "", replicaCount, sharedStore(t))
				lb := startHAProxy(t, "haproxy-roundrobin.cfg", addrs)
				kill := func() {
					n, err := strconv.Atoi(strings.TrimPrefix(lb.seedServer(t, 0), "r"))
					if err != nil || n < 1 || n > len(reps) {
						t.Fatalf("the seed's server: %v", err)
					}
					reps[n-1].cmd.Process.Kill()
					reps[n-1].cmd.Process.Wait()
				}
				ro := ex.rollouts[len(ex.rollouts)-1]
				if reward, why := loudRollout(t, lb, door, ro, kill); why != "" || reward != 1 {
					t.Errorf("after its seed's replica was killed: reward %v, %q; want 1", reward, why)
				}
			})
		}
	}
}
