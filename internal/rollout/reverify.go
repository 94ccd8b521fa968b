package rollout

import (
	"net/http"
	"strconv"
)

// ReverifyPath is where NeMo Gym's gym eval reverify asks a resources
// server whether its rollouts may be re-verified, before it re-posts any.
const ReverifyPath = "/reverify_mode"

// ReverifyMode serves GET /reverify_mode as NeMo Gym's resources servers
// do: 200, application/json, the mode (mcp.rollout.reverify_mode) as a bare
// JSON string. It needs no session and sets no cookie: gym eval reverify
// asks with neither, and fails on any other answer.
func (c *Contract) ReverifyMode(w http.ResponseWriter, r *http.Request) {
	body := strconv.Quote(c.reverify) // a mode is plain ASCII: Quote writes its JSON string
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write([]byte(body))
}
