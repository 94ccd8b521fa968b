package tests

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// TestFlagOff: with expose_tools_over_mcp false, Install changes nothing: the
// router answers every request byte for byte as it did without Install, and
// so does the Door it returns, which serves the router (NeMo Gym's prefix
// included: nothing is stripped).
func TestFlagOff(t *testing.T) {
	build := func(install, serveDoor bool) http.Handler {
		n := 0
		f := &fixture{
			sessions: session.New(testKeys(t), &session.Options{NewID: func() string { n++; return fmt.Sprint("sid-", n) }}),
			state:    make(map[string][]string),
		}
		r := chi.NewRouter()
		f.routes(r)
		if install {
			door, err := autoexpose.Install(r, autoexpose.Config{Name: "fixture"}) // the flag is off
			if err != nil || len(door.Report()) != 0 {
				t.Fatalf("Install with the flag off: %d report rows, err %v", len(door.Report()), err)
			}
			if serveDoor {
				return door
			}
		}
		return r
	}
	without, with, door := build(false, false), build(true, false), build(true, true)

	requests := []struct{ method, path, body string }{
		{"POST", "/weather", `{"city":"Paris"}`},
		{"POST", "/weather", `{"city":5}`},
		{"POST", "/weather", `{"city":`},
		{"POST", "/teapot", `{}`},
		{"POST", "/text", `{}`},
		{"POST", "/image", `{}`},
		{"POST", "/seed_session", `{"x":1}`},
		{"POST", "/verify", `{"response":{"output":[{"type":"function_call","name":"mcp__fixture__weather","call_id":"c1"}]}}`},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"POST", "/mcp/", `{}`},
		{"GET", "/mcp", ``},
		{"GET", "/nope", ``},
		{"POST", "/ng-rollout/r1/weather", `{"city":"Paris"}`},
		{"POST", "/ng-rollout/r1/seed_session", `{}`},
	}
	for _, rq := range requests {
		t.Run(rq.method+" "+rq.path, func(t *testing.T) {
			serveOne := func(h http.Handler) *httptest.ResponseRecorder {
				req := httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w
			}
			a, b, c := serveOne(without), serveOne(with), serveOne(door)
			// The session cookie's signature carries a timestamp, which may
			// tick between two requests: it is compared below, by the session
			// it names.
			hc, hb := c.Header().Clone(), b.Header().Clone()
			if len(hc.Values("Set-Cookie")) != len(hb.Values("Set-Cookie")) {
				t.Errorf("Set-Cookie headers: %d from the Door, %d from the router", len(hc.Values("Set-Cookie")), len(hb.Values("Set-Cookie")))
			}
			hc.Del("Set-Cookie")
			hb.Del("Set-Cookie")
			if c.Code != b.Code || !bytes.Equal(c.Body.Bytes(), b.Body.Bytes()) || !cmp.Equal(hc, hb) {
				t.Errorf("the Door: %d %v %q; the router: %d %v %q", c.Code, c.Header(), c.Body, b.Code, b.Header(), b.Body)
			}
			if a.Code != b.Code || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
				t.Errorf("with Install: %d %q; without: %d %q", b.Code, b.Body, a.Code, a.Body)
			}
			// Headers match, but for the signed session cookie, whose
			// signature carries a timestamp: compare the session it names.
			ha, hb := a.Header().Clone(), b.Header().Clone()
			ca, cb := ha.Values("Set-Cookie"), hb.Values("Set-Cookie")
			ha.Del("Set-Cookie")
			hb.Del("Set-Cookie")
			if diff := cmp.Diff(ha, hb); diff != "" {
				t.Fatalf("headers, but for Set-Cookie (-without Install +with):\n%s", diff)
			}
			if len(ca) != len(cb) {
				t.Fatalf("Set-Cookie headers: %d with Install, %d without", len(cb), len(ca))
			}
			for i := range ca {
				ida, erra := cookieSID(t, ca[i])
				idb, errb := cookieSID(t, cb[i])
				if ida != idb || erra != nil || errb != nil {
					t.Errorf("session cookies differ: %q (%v) vs %q (%v)", idb, errb, ida, erra)
				}
			}
		})
	}
}
