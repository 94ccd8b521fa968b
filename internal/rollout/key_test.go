package rollout_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// TestSeedSessionHeader: every /seed_session response names its session in
// the Mcpdoor-Session header, in plain, the same id its token and its
// cookie begin with, so that a proxy can store it in a stick table; a
// refused seed too, since its cookie names the session as well.
func TestSeedSessionHeader(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name      string
		status    int
		wantToken bool
	}{
		{"a seed", http.StatusOK, true},
		{"a seed the handler refuses", http.StatusBadRequest, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mgr := newContract(t, rollout.Config{}, nil)
			resp, body := seed(t, c.Seed(answer(tc.status, `{}`)), nil, `{}`)
			sid := sessionOf(t, mgr, resp)
			if got := resp.Header.Values("Mcpdoor-Session"); len(got) != 1 || got[0] != sid {
				t.Fatalf("Mcpdoor-Session %q; want [%q], the session of the cookie", got, sid)
			}
			for _, ck := range resp.Cookies() {
				if ck.Name == mgr.CookieName() && !strings.HasPrefix(ck.Value, sid+".") {
					t.Errorf("cookie value %q does not begin with %q", ck.Value, sid+".")
				}
			}
			if tok := tokenOf(body); tc.wantToken && !strings.HasPrefix(tok, sid+".") {
				t.Errorf("token %q does not begin with %q", tok, sid+".")
			}
		})
	}
}
