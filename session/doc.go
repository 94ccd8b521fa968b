// Package session gives each client of a server a session, carried in a
// signed cookie, and keeps per-session state in the server's session
// store. A server that mcpdoor serves takes its session manager from its
// config, so that the router's middleware and the MCP door make and read
// the same sessions:
//
//	sessions, err := cfg.UseSessions() // the door's manager: the one maker of sessions
//	...
//	r := chi.NewRouter()
//	r.Use(sessions.Middleware)
//	r.Post("/add_city", func(w http.ResponseWriter, r *http.Request) {
//		err := session.Update(r, "cities", func(cities *[]string) error {
//			*cities = append(*cities, "Paris")
//			return nil
//		})
//		...
//	})
//	door, err := autoexpose.Install(r, cfg)
//
// Install refuses a router whose session middleware is of another manager
// (one New made), which would make sessions the door does not hold.
//
// Every response of a request that went through the middleware sets the
// session's cookie, as NeMo Gym's servers do, so a client that keeps only
// the last response's cookies stays in its session. A request whose context
// already carries a session id keeps that session and gets no cookie from
// the middleware. mcpdoor runs each MCP tool call with the
// caller's session in the request's context, so a handler sees the same
// session over the HTTP door and over the MCP door.
//
// A session costs the store nothing until it holds something: it is
// registered when /seed_session starts a rollout in it, or when a handler
// first saves in it ([Save], [Update]). It ends, for good, once /verify has
// answered 2xx in it, at [End], or once it has gone unused for
// mcp.session_idle_ttl (default 1h); a call still running then saves
// nothing ([ErrEnded]). Use [Update] for a value that more than one call of
// a session may change at once; [Load] and [Save] for one that is read, or
// replaced whole.
//
// The store is the server's Config.Store: in memory by default, in Redis
// with package session/redisstore (a module of its own), or any other
// that implements [Store], which package session/storetest checks.
//
// New makes a Manager of its own, with its own memory store, for a server
// without a Door.
package session
