// Package articles serves the shop's blog, in the go-chi/render style.
package articles

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/render"
)

// Article is a post of the shop's blog.
type Article struct {
	ID        string   `json:"id"`
	Slug      string   `json:"slug"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Tags      []string `json:"tags,omitempty"`
	Published bool     `json:"published"`
}

// ArticleRequest is a new or changed article, and who wrote it.
type ArticleRequest struct {
	*Article
	AuthorID int64 `json:"author_id,omitempty"`
}

// Bind checks an ArticleRequest.
func (a *ArticleRequest) Bind(r *http.Request) error {
	if a.Article == nil {
		return errors.New("missing article")
	}
	if a.Title == "" {
		return errors.New("a title is required")
	}
	return nil
}

// ArticleResponse is an article as answered.
type ArticleResponse struct {
	*Article
	URL string `json:"url"`
}

// Render sets the answer's URL.
func (a *ArticleResponse) Render(w http.ResponseWriter, r *http.Request) error {
	a.URL = "/blog/" + a.Slug
	return nil
}

// ErrResponse is an error answer.
type ErrResponse struct {
	HTTPStatusCode int    `json:"-"`
	StatusText     string `json:"status"`
	ErrorText      string `json:"error,omitempty"`
}

// Render sets the status.
func (e *ErrResponse) Render(w http.ResponseWriter, r *http.Request) error {
	render.Status(r, e.HTTPStatusCode)
	return nil
}

// ErrInvalidRequest is a 400 answer.
func ErrInvalidRequest(err error) render.Renderer {
	return &ErrResponse{HTTPStatusCode: 400, StatusText: "Invalid request.", ErrorText: err.Error()}
}

// ErrNotFound is a 404 answer.
var ErrNotFound = &ErrResponse{HTTPStatusCode: 404, StatusText: "Resource not found."}

// Store holds the articles.
type Store struct {
	mu       sync.Mutex
	articles []*Article
}

// NewStore returns a store with one article.
func NewStore() *Store {
	return &Store{articles: []*Article{{ID: "1", Slug: "hello", Title: "Hello", Body: "First.", Published: true}}}
}

type ctxKey struct{}

// ArticleCtx loads the article of the URL's {articleID} or {slug}.
func (s *Store) ArticleCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, slug := chi.URLParam(r, "articleID"), chi.URLParam(r, "slug")
		s.mu.Lock()
		var found *Article
		for _, a := range s.articles {
			if (id != "" && a.ID == id) || (slug != "" && a.Slug == slug) {
				found = a
			}
		}
		s.mu.Unlock()
		if found == nil {
			render.Render(w, r, ErrNotFound)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, found)))
	})
}

func article(r *http.Request) *Article { return r.Context().Value(ctxKey{}).(*Article) }

func newArticleResponse(a *Article) *ArticleResponse { return &ArticleResponse{Article: a} }

func newArticleList(list []*Article) []render.Renderer {
	out := []render.Renderer{}
	for _, a := range list {
		out = append(out, newArticleResponse(a))
	}
	return out
}

// List answers the articles: tag keeps one tag's, published=false shows
// drafts too, limit caps the count.
func (s *Store) List(w http.ResponseWriter, r *http.Request) {
	tag := r.URL.Query().Get("tag")
	drafts := r.URL.Query().Get("published") == "false"
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil {
		limit = 50
	}
	s.mu.Lock()
	var out []*Article
	for _, a := range s.articles {
		if (tag == "" || contains(a.Tags, tag)) && (a.Published || drafts) && len(out) < limit {
			out = append(out, a)
		}
	}
	s.mu.Unlock()
	render.RenderList(w, r, newArticleList(out))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Create adds an article.
func (s *Store) Create(w http.ResponseWriter, r *http.Request) {
	data := &ArticleRequest{}
	if err := render.Bind(r, data); err != nil {
		render.Render(w, r, ErrInvalidRequest(err))
		return
	}
	s.mu.Lock()
	data.Article.ID = strconv.Itoa(len(s.articles) + 1)
	s.articles = append(s.articles, data.Article)
	s.mu.Unlock()
	render.Status(r, http.StatusCreated)
	render.Render(w, r, newArticleResponse(data.Article))
}

// Get answers the article.
func Get(w http.ResponseWriter, r *http.Request) {
	render.Render(w, r, newArticleResponse(article(r)))
}

// Update changes the article.
func Update(w http.ResponseWriter, r *http.Request) {
	a := article(r)
	data := &ArticleRequest{Article: a}
	if err := render.Bind(r, data); err != nil {
		render.Render(w, r, ErrInvalidRequest(err))
		return
	}
	render.Render(w, r, newArticleResponse(a))
}

// Delete removes the article.
func (s *Store) Delete(w http.ResponseWriter, r *http.Request) {
	a := article(r)
	s.mu.Lock()
	for i, x := range s.articles {
		if x == a {
			s.articles = append(s.articles[:i], s.articles[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	render.NoContent(w, r)
}

// Publish makes the article public.
func Publish(w http.ResponseWriter, r *http.Request) {
	a := article(r)
	a.Published = true
	render.Render(w, r, newArticleResponse(a))
}
