package autoexpose

import (
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/detect"
)

// What the door sees. Install reads the router it is given: its routes and
// each route's middleware chain (the router's Use, sub-routers', Group's and
// With's). A replayed call goes through that router, so every check on that
// chain holds over MCP as over HTTP. Two kinds of check are out of its
// sight: a handler wrapped around the router — http.ListenAndServe(addr,
// outer(r)) — unless the config names it as Config.Outer, and a check
// inside a handler, which runs on both doors anyway but which the detector
// cannot know about (its verdict says nothing of it).

// outerReason is why every tool replays when Config.Outer is set.
const outerReason = "Config.Outer: calls replay through the handler the server serves"

// throughOuter makes every servable tool route of rep replay, through
// Config.Outer: a direct call would skip the handler around the router.
func throughOuter(rep *detect.Report) {
	for i := range rep.Routes {
		rt := &rep.Routes[i]
		if (rt.Kind == detect.Tool || rt.Kind == detect.CatchAll) && rt.Verdict != detect.Refused {
			rt.Verdict = detect.Replay
			rt.Reasons = append(rt.Reasons, outerReason)
		}
	}
}

// around is what the Door serves, and replays tool calls through: h inside
// Config.Outer when set, else h. It is called once per Door, so that a
// middleware with state of its own (a rate limiter, a counter) sees every
// request, served or replayed, in one instance.
func around(cfg *Config, h http.Handler) http.Handler {
	if cfg.Outer != nil {
		return cfg.Outer(h)
	}
	return h
}
