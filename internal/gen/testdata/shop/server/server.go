// Package server wires the shop's routes.
package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"example.com/shop/admin"
	"example.com/shop/articles"
	"example.com/shop/cart"
	"example.com/shop/comments"
	"example.com/shop/notify"
	"example.com/shop/orders"
	"example.com/shop/search"
	"example.com/shop/tags"
	"example.com/shop/users"
)

// requireKey lets a request through when it carries the admin key.
func requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Admin-Key") != "secret" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// NewRouter serves the shop's API.
func NewRouter() chi.Router {
	u := users.New()
	blog := articles.NewStore()
	notes := &comments.Store{}
	shop := &orders.Service{}
	back := admin.New()
	carts := &cart.Handler{}
	center := notify.NewCenter()

	r := chi.NewRouter()
	r.Use(middleware.RequestID, middleware.Recoverer)
	r.Get("/healthz", admin.Health)
	r.Route("/api/v1", func(r chi.Router) {
		r.Route("/users", func(r chi.Router) {
			r.Get("/", u.List)
			r.Post("/", u.Create)
			r.Get("/me", u.Me)
			r.Get("/me/sessions", u.Sessions)
			r.Post("/me/password", u.ChangePassword)
			r.Get("/{userID}", u.Get)
			r.Patch("/{userID}", u.Update)
			r.Delete("/{userID}", u.Delete)
		})
		r.Route("/articles", func(r chi.Router) {
			r.Get("/", blog.List)
			r.Post("/", blog.Create)
			r.Route("/{articleID}", func(r chi.Router) {
				r.Use(blog.ArticleCtx)
				r.Get("/", articles.Get)
				r.Put("/", articles.Update)
				r.Delete("/", blog.Delete)
				r.Post("/publish", articles.Publish)
				r.Get("/comments", comments.List(notes))
				r.Post("/comments", comments.Create(notes))
			})
			r.With(blog.ArticleCtx).Get("/by-slug/{slug}", articles.Get)
		})
		r.Delete("/comments/{commentID}", comments.Delete(notes))
		r.Post("/comments/{commentID}/like", comments.Like(notes))
		r.Route("/tags", func(r chi.Router) {
			r.Get("/", tags.ListTags)
			r.Post("/", tags.CreateTag)
			r.Post("/merge", tags.MergeTags)
			r.Put("/{name}", tags.RenameTag)
			r.Delete("/{name}", tags.DeleteTag)
		})
		r.Route("/orders", func(r chi.Router) {
			r.Get("/", shop.List)
			r.Post("/", shop.Place)
			r.Get("/{orderID}", shop.Get)
			r.Post("/{orderID}/cancel", shop.Cancel)
			r.Post("/{orderID}/refund", shop.RefundOrder)
			r.Post("/{orderID}/pay", shop.Pay)
			r.Get("/{orderID}/invoice", shop.Invoice)
		})
		r.Get("/search", search.Search)
		r.Post("/search/advanced", search.Advanced)
		r.Get("/search/suggest", search.Suggest)
		r.Get("/search/facets", search.Facets)
		r.Route("/cart", func(r chi.Router) {
			r.Get("/", carts.Get)
			r.Post("/items", carts.Add)
			r.Delete("/items/{sku}", carts.Remove)
			r.Post("/checkout", carts.Checkout)
		})
		r.Route("/notifications", func(r chi.Router) {
			r.Get("/", center.List)
			r.Put("/{id}/read", center.MarkRead)
			r.Post("/read-all", center.ReadAll)
			r.Get("/settings", center.GetSettings)
			r.Put("/settings", center.PutSettings)
		})
		r.Route("/admin", func(r chi.Router) {
			r.Use(requireKey)
			r.Get("/stats", back.Stats)
			r.Get("/audit", back.Audit)
			r.Post("/users/{userID}/ban", back.BanUser)
			r.Get("/flags", back.Flags)
			r.Put("/flags", back.SetFlags)
			r.Post("/reindex", back.Reindex)
			r.Get("/export/users", back.ExportUsers)
		})
	})
	return r
}
