package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/render"
)

// Article is a blog post.
type Article struct {
	ID     string   `json:"id"`
	UserID int64    `json:"user_id"`
	Title  string   `json:"title"`
	Slug   string   `json:"slug"`
	Text   string   `json:"text,omitempty"`
	Tags   []string `json:"tags,omitempty"`
}

// ArticleRequest is the body of a create or an update: the article's own
// fields, and who writes it.
type ArticleRequest struct {
	*Article
	// Author names the writer when it is not the signed-in user.
	Author string `json:"author,omitempty"`
	// Draft keeps the article off the front page.
	Draft bool `json:"draft"`
}

// Bind checks a decoded ArticleRequest; render.Bind calls it.
func (a *ArticleRequest) Bind(r *http.Request) error {
	if a.Article == nil {
		return errors.New("missing the article's fields")
	}
	if a.Title == "" {
		return errors.New("title is required")
	}
	return nil
}

// ArticleResponse is an article as the API answers it.
type ArticleResponse struct {
	*Article
	Comments int `json:"comments"`
}

// Render fills in the response's computed fields.
func (a *ArticleResponse) Render(w http.ResponseWriter, r *http.Request) error {
	return nil
}

// ErrResponse is the body of an error answer.
type ErrResponse struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
}

// Render sets the error's status.
func (e *ErrResponse) Render(w http.ResponseWriter, r *http.Request) error {
	render.Status(r, e.Status)
	return nil
}

func errInvalid(err error) render.Renderer {
	return &ErrResponse{Status: http.StatusBadRequest, Message: err.Error()}
}

var errNotFound = &ErrResponse{Status: http.StatusNotFound, Message: "not found"}

type articleKey struct{}

// ArticleCtx loads the article named by the URL's {articleID} into the
// request's context, and answers 404 when there is none.
func (s *Store) ArticleCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.article(chi.URLParam(r, "articleID"))
		if !ok {
			render.Render(w, r, errNotFound)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), articleKey{}, a)))
	})
}

func newArticleResponse(a *Article) *ArticleResponse {
	return &ArticleResponse{Article: a}
}

func newArticleList(articles []*Article) []render.Renderer {
	list := []render.Renderer{}
	for _, a := range articles {
		list = append(list, newArticleResponse(a))
	}
	return list
}

// ListArticles lists the articles, newest last; tag narrows the list to
// one tag, and limit caps its length (default 20).
func (s *Store) ListArticles(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			render.Render(w, r, errInvalid(err))
			return
		}
		limit = n
	}
	render.RenderList(w, r, newArticleList(s.listArticles(r.URL.Query().Get("tag"), limit)))
}

// CreateArticle publishes a new article and answers it, with its ID.
func (s *Store) CreateArticle(w http.ResponseWriter, r *http.Request) {
	data := &ArticleRequest{}
	if err := render.Bind(r, data); err != nil {
		render.Render(w, r, errInvalid(err))
		return
	}
	s.addArticle(data.Article)
	render.Status(r, http.StatusCreated)
	render.Render(w, r, newArticleResponse(data.Article))
}

// GetArticle answers the article named by the path.
func GetArticle(w http.ResponseWriter, r *http.Request) {
	a := r.Context().Value(articleKey{}).(*Article)
	if err := render.Render(w, r, newArticleResponse(a)); err != nil {
		render.Render(w, r, errInvalid(err))
	}
}

// UpdateArticle replaces the article's title, text and tags.
func UpdateArticle(w http.ResponseWriter, r *http.Request) {
	a := r.Context().Value(articleKey{}).(*Article)
	data := &ArticleRequest{Article: a}
	if err := render.Bind(r, data); err != nil {
		render.Render(w, r, errInvalid(err))
		return
	}
	render.Render(w, r, newArticleResponse(data.Article))
}

// DeleteArticle removes the article and answers what it was.
func (s *Store) DeleteArticle(w http.ResponseWriter, r *http.Request) {
	a := r.Context().Value(articleKey{}).(*Article)
	s.removeArticle(a.ID)
	render.Render(w, r, newArticleResponse(a))
}
