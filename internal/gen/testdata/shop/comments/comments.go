// Package comments serves comments on the blog's articles, with handlers
// made by factories.
package comments

import (
	"net/http"
	"sort"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/shop/httpx"
)

// Comment is a reader's comment.
type Comment struct {
	ID       int    `json:"id"`
	Article  string `json:"article"`
	Author   string `json:"author"`
	Text     string `json:"text"`
	ParentID int    `json:"parent_id,omitempty"`
	Likes    int    `json:"likes"`
}

// Store holds the comments.
type Store struct {
	mu   sync.Mutex
	list []Comment
}

// List returns the handler that lists an article's comments, by sort
// ("new" or "top").
func List(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		article := chi.URLParam(r, "articleID")
		by := r.URL.Query().Get("sort")
		s.mu.Lock()
		out := []Comment{}
		for _, c := range s.list {
			if c.Article == article {
				out = append(out, c)
			}
		}
		s.mu.Unlock()
		if by == "top" {
			sort.Slice(out, func(i, j int) bool { return out[i].Likes > out[j].Likes })
		}
		httpx.JSON(w, http.StatusOK, out)
	}
}

// NewComment is a comment being written.
type NewComment struct {
	Author   string `json:"author"`
	Text     string `json:"text"`
	ParentID int    `json:"parent_id,omitempty"`
}

// Create returns the handler that adds a comment; text is required.
func Create(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, err := httpx.DecodeAs[NewComment](r)
		if err != nil {
			httpx.BadRequest(w, err)
			return
		}
		if in.Text == "" {
			httpx.Fail(w, http.StatusBadRequest, "invalid", "text is required")
			return
		}
		s.mu.Lock()
		c := Comment{ID: len(s.list) + 1, Article: chi.URLParam(r, "articleID"), Author: in.Author, Text: in.Text, ParentID: in.ParentID}
		s.list = append(s.list, c)
		s.mu.Unlock()
		httpx.JSON(w, http.StatusCreated, c)
	}
}

// Delete returns the handler that removes a comment.
func Delete(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(chi.URLParam(r, "commentID"))
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, c := range s.list {
			if c.ID == id {
				s.list = append(s.list[:i], s.list[i+1:]...)
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		httpx.NotFound(w)
	}
}

// Like returns the handler that likes a comment and answers its count.
func Like(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(chi.URLParam(r, "commentID"))
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := range s.list {
			if s.list[i].ID == id {
				s.list[i].Likes++
				httpx.JSON(w, http.StatusOK, map[string]int{"likes": s.list[i].Likes})
				return
			}
		}
		httpx.NotFound(w)
	}
}
