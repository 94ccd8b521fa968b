// Package session gives each client of a server a session id carried in a
// signed cookie, so that handlers can keep per-session state:
//
//	sessions := session.New(keys, nil)
//	r := chi.NewRouter()
//	r.Use(sessions.Middleware)
//	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
//		id := session.ID(r) // the same id on every request of this client
//		...
//	})
//
// Every response of a request that went through the middleware sets the
// session's cookie, as NeMo Gym's servers do, so a client that keeps only the
// last response's cookies stays in its session. A request whose context
// already carries a session id ([NewContext]) keeps that session and gets no
// cookie from the middleware.
//
// mcpdoor runs each MCP tool call with the caller's session id in the
// request's context, so a handler sees the same session id over the HTTP
// door and over the MCP door. A server that mcpdoor serves gets its
// Manager from autoexpose's Config.UseSessions, so that the router's
// middleware and the door sign and read the same cookies.
package session
