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
// mcpdoor reproduces this middleware when it dispatches an MCP tool call, so a
// handler sees the same session id over the HTTP door and over the MCP door.
package session
