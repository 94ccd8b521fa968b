package main

// The rest example: a notes API written the way chi REST
// servers usually are, with an auth group, Route sub-routers, URL
// parameters, a middleware that loads the note a route names, query
// parameters, PATCH and DELETE, and an admin router mounted with its own
// middleware. Its handlers know nothing of MCP.
//
// Every user's notes are kept per session (session.ID), so two clients
// with two sessions, over HTTP or MCP, never see each other's notes.
//
// Routes (all JSON; errors are {"error": "..."}):
//
//	GET    /healthz
//	GET    /api/notes/?tag=&limit=         list notes, newest first
//	POST   /api/notes/                      create a note: {"text", "tags"}
//	GET    /api/notes/search?q=             find notes by text
//	GET    /api/notes/{id}/                 one note
//	PATCH  /api/notes/{id}/                 change its text or tags
//	DELETE /api/notes/{id}/                 delete it
//	POST   /api/notes/{id}/archive          archive it
//	GET    /api/admin/stats                 counts, for the admin token
//	DELETE /api/admin/users/{user}/notes    delete a user's notes, for the admin token
//
// /api/notes routes need "Authorization: Bearer <token>" with a user's
// token; /api/admin routes the admin token.

import (
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// Config is what the notes API needs.
type Config struct {
	// Users maps bearer tokens to the users they authenticate. Default:
	// "demo-token" for the user "demo".
	Users map[string]string
	// AdminToken is the bearer token of /api/admin. Default "admin-token".
	AdminToken string
	// Sessions is the session middleware (a session.Manager's Middleware)
	// that gives each client its own notes; nil keeps one shared store.
	Sessions func(http.Handler) http.Handler
}

// Note is one stored note.
type Note struct {
	ID       int      `json:"id"`
	Text     string   `json:"text"`
	Tags     []string `json:"tags"`
	Archived bool     `json:"archived"`
}

// Server holds every session's notes.
type Server struct {
	users map[string]string
	admin string

	mu    sync.Mutex
	notes map[owner][]*Note // oldest first
	next  map[string]int    // session → the last id given
}

// owner is whose notes a list is: a user, in a session.
type owner struct{ session, user string }

// newAPI returns the notes API's router: every route, no MCP. mcpdoor's
// Install reads it as it is.
func newAPI(cfg Config) chi.Router {
	s := &Server{users: cfg.Users, admin: cfg.AdminToken, notes: make(map[owner][]*Note), next: make(map[string]int)}
	if s.users == nil {
		s.users = map[string]string{"demo-token": "demo"}
	}
	if s.admin == "" {
		s.admin = "admin-token"
	}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	if cfg.Sessions != nil {
		r.Use(cfg.Sessions)
	}
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Route("/api", func(r chi.Router) {
		r.Group(func(r chi.Router) {
			r.Use(s.requireUser)
			r.Route("/notes", func(r chi.Router) {
				r.Get("/", s.listNotes)
				r.Post("/", s.createNote)
				r.Get("/search", s.searchNotes)
				r.Route("/{id}", func(r chi.Router) {
					r.Use(s.noteCtx)
					r.Get("/", s.getNote)
					r.Patch("/", s.updateNote)
					r.Delete("/", s.deleteNote)
					r.Post("/archive", s.archiveNote)
				})
			})
		})
		r.Mount("/admin", s.adminRouter())
	})
	return r
}

// adminRouter is the admin API, a router of its own behind the admin
// token.
func (s *Server) adminRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(s.requireAdmin)
	r.Get("/stats", s.stats)
	r.Delete("/users/{user:[a-z0-9_-]+}/notes", s.purgeUser)
	return r
}
