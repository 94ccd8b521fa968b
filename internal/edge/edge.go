// Package edge holds the MCP endpoint's HTTP steps, each a
// func(http.Handler) http.Handler that serves a request through the next
// step or refuses it: the guard (guard.go), the session a request names
// (misroute.go), the lifecycle (lifecycle.go), the body reading
// (bodylimit.go), the session limits (sessionlimits.go, exclusive.go) and
// the inflight requests (inflight.go). None knows the Door: each is made
// of the values and funcs it needs. The Door lists them, in request order,
// in one Chain.
package edge

import (
	"net/http"
	"strconv"
	"time"
)

// SessionIDHeader is the Streamable HTTP transport's session header.
const SessionIDHeader = "Mcp-Session-Id"

// A Step serves a request through next, or refuses it.
type Step = func(next http.Handler) http.Handler

// Steps are a chain of Steps, in the order a request meets them.
type Steps []Step

// Chain returns steps as a chain, first step first. A nil step (one a
// config leaves out) is skipped.
func Chain(steps ...Step) Steps { return steps }

// Handler returns h behind the chain: a request meets the first step
// first, and h after the last.
func (s Steps) Handler(h http.Handler) http.Handler {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != nil {
			h = s[i](h)
		}
	}
	return h
}

// Seconds writes a duration as a config would: 600s, 1.5s, 300ms.
func Seconds(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}
