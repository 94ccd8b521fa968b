package autoexpose

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// The Door's session manager is the one maker of the server's sessions:
// the router's session middleware must be its (Config.UseSessions). A
// middleware of another manager (session.New) would make sessions of its
// own, in a store of its own, which the Door does not hold and refuses
// as misrouted (421), on the one replica that made them. So Install
// refuses such a router, naming where the middleware is. A handler the
// Door cannot read (Wrap) is served all the same: behind the Door, a
// session middleware of another manager defers to the Door's (see
// sessions.Manager.Ensure), and the log says so once.

// foreignSessions returns Install's refusal of a router r whose session
// middleware, at its root or on a route, is of another manager than m,
// or nil.
func foreignSessions(r chi.Routes, m *sessions.Manager) error {
	foreign := func(mw func(http.Handler) http.Handler) bool {
		if !slices.Contains(sessions.MiddlewareNames, detect.FuncName(mw)) {
			return false
		}
		owner := sessions.ManagerOf(mw)
		return owner != nil && owner != m
	}
	refusal := func(route string) error {
		return &detect.RefusedError{
			Route: route,
			Reason: "the router's session middleware is of another session.Manager than the door's (one session.New made, or UseSessions on another copy of the Config): " +
				"the door would hold none of its sessions, and refuse their requests (421)",
			Fix: "use the Middleware of the manager that UseSessions returns for the Config given to Install",
		}
	}
	root := r.Middlewares()
	if slices.ContainsFunc(root, foreign) {
		return refusal("")
	}
	var err error
	chi.Walk(r, func(method, route string, _ http.Handler, mws ...func(http.Handler) http.Handler) error {
		if err == nil && len(mws) > len(root) && slices.ContainsFunc(mws[len(root):], foreign) {
			err = refusal(method + " " + route)
		}
		return nil
	})
	return err
}
