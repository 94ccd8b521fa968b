package edge

import (
	"io"
	"net/http"
)

// ReadyPath is where, under the MCP endpoint's path, the Door answers a
// balancer's health check (GET /mcp/ready by default).
const ReadyPath = "/ready"

// The readiness answers: their status is the verdict, the text for people.
const (
	readyText  = "ready: this server takes a new rollout\n"
	busyText   = "busy: this server is exclusive (mcp.exclusive) and serves another rollout\n"
	closedText = "closed: this server is shutting down\n"
)

// Ready answers GET <path>/ready: 200 while the Door takes a new rollout,
// 503 with Retry-After while it does not: an exclusive Door whose slot s
// serves a rollout (from its seed to its /verify), and any Door once life
// is closed. A balancer's health check (HAProxy's option httpchk with
// http-check expect status 200) so drains the busy replicas, and a seed
// that races the check gets the seed's own 503 (see Slot.wrapSeed). s is
// nil on a Door that is not exclusive.
func Ready(life *Lifecycle, s *Slot) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		text := readyText
		switch {
		case life.Closed():
			text = closedText
		case s != nil && s.taken():
			text = busyText
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if text != readyText {
			w.Header().Set("Retry-After", busyRetry)
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		io.WriteString(w, text)
	}
}
