package api

//go:generate go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/render"
)

// NewRouter serves the blog: its pages, and its JSON API.
func NewRouter(s *Store) chi.Router {
	users := &Users{Store: s}
	r := chi.NewRouter()
	r.Use(middleware.URLFormat)
	r.Use(render.SetContentType(render.ContentTypeJSON))
	r.Get("/", Home)
	r.Get("/health", Health)
	r.Post("/login", Login)
	r.Route("/articles", func(r chi.Router) {
		r.Get("/", s.ListArticles)
		r.Post("/", s.CreateArticle)
		r.Post("/search", s.Search)
		r.Route("/{articleID}", func(r chi.Router) {
			r.Use(s.ArticleCtx)
			r.Get("/", GetArticle)
			r.Put("/", UpdateArticle)
			r.Delete("/", s.DeleteArticle)
			r.Get("/comments", ListComments(s))
			r.Post("/comments", NewCommentHandler(s))
		})
	})
	r.Route("/users", func(r chi.Router) {
		r.Get("/", users.List)
		r.Post("/", users.Create)
		r.Get("/{userID}", users.Get)
	})
	r.Get("/version", func(w http.ResponseWriter, r *http.Request) {
		render.JSON(w, r, map[string]string{"version": "1.0"})
	})
	return r
}
