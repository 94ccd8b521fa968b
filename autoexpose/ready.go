package autoexpose

import (
	"io"
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// readyPath is where, under the MCP endpoint's path, the Door answers a
// balancer's health check (GET /mcp/ready by default).
const readyPath = "/ready"

// The readiness answers: their status is the verdict, the text for people.
const (
	readyText  = "ready: this server takes a new rollout\n"
	busyText   = "busy: this server is exclusive (mcp.exclusive) and serves another rollout\n"
	closedText = "closed: this server is shutting down\n"
)

// ready answers GET <path>/ready: 200 while the Door takes a new rollout,
// 503 with Retry-After while it does not: an exclusive Door whose slot
// serves a rollout (from its seed to its /verify), and any Door once
// closed. A balancer's health check (HAProxy's option httpchk with
// http-check expect status 200) so drains the busy replicas, and a seed
// that races the check gets the seed's own 503 (see slot.wrapSeed).
func (d *Door) ready(w http.ResponseWriter, r *http.Request) {
	text := readyText
	switch {
	case d.life.ctx.Err() != nil:
		text = closedText
	case d.slot != nil && d.slot.taken():
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

// seed returns the contract's /seed_session wrap, under the exclusive slot
// where there is one.
func (d *Door) seed(c *rollout.Contract) func(http.Handler) http.Handler {
	if d.slot == nil {
		return c.Seed
	}
	return func(h http.Handler) http.Handler { return d.slot.wrapSeed(c.SeedBody, c.Seed(h)) }
}

// verify returns the contract's /verify wrap; where there is an exclusive
// slot, the rollout it verifies then leaves the slot.
func (d *Door) verify(c *rollout.Contract) func(http.Handler) http.Handler {
	if d.slot == nil {
		return c.Verify
	}
	return func(h http.Handler) http.Handler { return d.slot.wrapVerify(c.Verify(h)) }
}
