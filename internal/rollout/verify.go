package rollout

import (
	"fmt"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/verifywrap"
)

// Verify wraps a /verify handler: it sees this server's mcp__<name>__<tool>
// names as the bare tool names, and its response echoes the emitted ones
// (see package verifywrap), and, once Expose has named the server's tools,
// mcp_<name>_<tool> as <tool> for one of them. A body over mcp.rollout.max_verify_bytes gets
// 413 naming that key. Its log lines name the request's rollout, when it
// came under the /ng-rollout/ prefix.
func (c *Contract) Verify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := c.logger(r.Context())
		opts := &verifywrap.Options{
			MaxBodyBytes: c.maxVerify,
			LimitName:    "mcp.rollout.max_verify_bytes",
			Logf:         func(format string, args ...any) { log.Warn("mcpdoor: " + fmt.Sprintf(format, args...)) },
		}
		if c.tools != nil {
			r = r.WithContext(exposed.With(r.Context(), c.tools))
		}
		verifywrap.Wrap(next, c.server, opts).ServeHTTP(w, r)
	})
}
