// Package comments serves readers' comments, answering through the
// response library.
package comments

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/pkgz/rest"

	"example.com/untuned/model"
)

// Service keeps the comments of every post.
type Service struct {
	mu       sync.Mutex
	comments []model.Comment
}

type newComment struct {
	Author  string `json:"author"`
	Text    string `json:"text"`
	ReplyTo int    `json:"reply_to,omitempty"`
}

// List answers a post's comments, oldest first, or newest first with
// sort=desc.
func (s *Service) List(w http.ResponseWriter, r *http.Request) {
	post := chi.URLParam(r, "post")
	desc := r.URL.Query().Get("sort") == "desc"
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []model.Comment{}
	for _, c := range s.comments {
		if c.PostID == post {
			list = append(list, c)
		}
	}
	if desc {
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	rest.RenderJSON(w, list)
}

// Create adds a comment to a post.
func (s *Service) Create(w http.ResponseWriter, r *http.Request) {
	var in newComment
	if err := rest.DecodeJSON(r, &in); err != nil {
		rest.SendErrorJSON(w, r, http.StatusBadRequest, err, "can't decode the comment")
		return
	}
	if in.Text == "" {
		rest.SendErrorJSON(w, r, http.StatusBadRequest, nil, "a comment needs a text")
		return
	}
	s.mu.Lock()
	c := model.Comment{ID: len(s.comments) + 1, PostID: chi.URLParam(r, "post"), Author: in.Author, Text: in.Text}
	s.comments = append(s.comments, c)
	s.mu.Unlock()
	rest.EncodeJSON(w, http.StatusCreated, c)
}

// Like adds a like to a comment.
func (s *Service) Like(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(chi.URLParam(r, "id"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || id < 1 || id > len(s.comments) {
		rest.SendErrorJSON(w, r, http.StatusNotFound, err, "no such comment")
		return
	}
	s.comments[id-1].Likes++
	rest.RenderJSON(w, rest.JSON{"id": id, "likes": s.comments[id-1].Likes})
}

// Counts answers how many comments each post asked for has.
func (s *Service) Counts(w http.ResponseWriter, r *http.Request) {
	posts := r.URL.Query()["post"]
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[string]int{}
	for _, p := range posts {
		counts[p] = 0
	}
	for _, c := range s.comments {
		if _, ok := counts[c.PostID]; ok {
			counts[c.PostID]++
		}
	}
	rest.RenderJSON(w, counts)
}
