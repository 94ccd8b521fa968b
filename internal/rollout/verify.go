package rollout

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/internal/httpwrite"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/verifywrap"
)

// Verify wraps a /verify handler: it sees this server's mcp__<name>__<tool>
// names as the bare tool names, and its response echoes the emitted ones
// (see package verifywrap), and, once Expose has named the server's tools,
// every agent's form of their names (exposed.Tools.Resolve). Unless
// mcp.rollout.claims is off, the trajectory's claimed calls are checked
// first (see check): a trajectory that claims a call the session did not
// make is refused (422) or marked, and the answer's response object gains
// the receipts of the accepted ones. A body over mcp.rollout.max_verify_bytes gets
// 413 naming that key. Its log lines name the request's rollout, when it
// came under the /ng-rollout/ prefix.
//
// A 2xx answer ends the rollout: its session ends for good (the store
// forgets its state, and Config.OnSessionEnd is told of it once). Any
// other answer ends nothing, so that the agent may post /verify again.
func (c *Contract) Verify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := c.logger(r.Context())
		opts := &verifywrap.Options{
			MaxBodyBytes: c.maxVerify,
			LimitName:    "mcp.rollout.max_verify_bytes",
			Logf:         func(format string, args ...any) { log.Warn("mcpdoor: " + fmt.Sprintf(format, args...)) },
		}
		r = r.WithContext(exposed.With(r.Context(), &exposed.Door{Tools: c.tools, Check: c.check(r)}))
		if c.bodies != nil {
			r = r.WithContext(bodies.WithPolicy(r.Context(), c.bodies))
		}
		sw := &httpwrite.StatusWriter{ResponseWriter: w}
		verifywrap.Wrap(next, c.server, opts).ServeHTTP(sw, r)
		if sw.Status == 0 {
			sw.Status = http.StatusOK
		}
		if sw.Status < 200 || sw.Status > 299 {
			return
		}
		c.end(r, log)
	})
}

// end ends the session of a /verify request that was answered 2xx: once,
// however many /verify posts of the rollout end it at once (the Manager
// tells Config.OnSessionEnd).
func (c *Contract) end(r *http.Request, log *slog.Logger) {
	ctx := context.WithoutCancel(r.Context())
	var err error
	switch s := sessions.SessionOf(r.Context()); {
	case s != nil:
		err = s.End(ctx)
	default:
		sid, rerr := c.sessions.Read(r)
		if rerr != nil {
			return // no session: nothing to end
		}
		err = c.sessions.End(ctx, sid)
	}
	if err != nil {
		log.Error("mcpdoor: session store: ending the session /verify ended", "sid", sessions.ID(r), "err", err)
	}
}
