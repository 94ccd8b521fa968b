package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
)

// NewNote is the body of POST /api/notes/.
type NewNote struct {
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"`
}

// NotePatch is the body of PATCH /api/notes/{id}/: the fields to change.
type NotePatch struct {
	Text *string  `json:"text,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

const defaultLimit, maxLimit = 20, 100

type noteKey struct{}

// ownerOf returns whose notes the request reads: its user, in its session.
func ownerOf(r *http.Request) owner { return owner{session.ID(r), user(r)} }

// noteCtx loads the note the {id} parameter names into the request's
// context, or answers 404.
func (s *Server) noteCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := chi.URLParam(r, "id")
		id, err := strconv.Atoi(raw)
		var n *Note
		if err == nil {
			s.mu.Lock()
			for _, x := range s.notes[ownerOf(r)] {
				if x.ID == id {
					n = x
				}
			}
			s.mu.Unlock()
		}
		if n == nil {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no note %q", raw))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), noteKey{}, n)))
	})
}

func noteOf(r *http.Request) *Note { return r.Context().Value(noteKey{}).(*Note) }

func (s *Server) listNotes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit must be an integer from 1 to %d, not %q", maxLimit, v))
			return
		}
		limit = n
	}
	tag := q.Get("tag")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Note{}
	notes := s.notes[ownerOf(r)]
	for i := len(notes) - 1; i >= 0 && len(out) < limit; i-- {
		if tag == "" || slices.Contains(notes[i].Tags, tag) {
			out = append(out, *notes[i])
		}
	}
	writeJSON(w, http.StatusOK, map[string][]Note{"notes": out})
}

func (s *Server) searchNotes(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	if q == "" {
		writeError(w, http.StatusBadRequest, "q is required: the text to look for")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Note{}
	for _, n := range s.notes[ownerOf(r)] {
		if strings.Contains(strings.ToLower(n.Text), q) {
			out = append(out, *n)
		}
	}
	writeJSON(w, http.StatusOK, map[string][]Note{"notes": out})
}

func (s *Server) createNote(w http.ResponseWriter, r *http.Request) {
	var in NewNote
	if !decode(w, r, &in) {
		return
	}
	if strings.TrimSpace(in.Text) == "" {
		writeError(w, http.StatusUnprocessableEntity, "text must not be empty")
		return
	}
	o := ownerOf(r)
	s.mu.Lock()
	s.next[o.session]++
	n := &Note{ID: s.next[o.session], Text: in.Text, Tags: tagsOf(in.Tags)}
	s.notes[o] = append(s.notes[o], n)
	out := *n
	s.mu.Unlock()
	w.Header().Set("Location", fmt.Sprintf("/api/notes/%d/", out.ID))
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) getNote(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	out := *noteOf(r)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) updateNote(w http.ResponseWriter, r *http.Request) {
	var in NotePatch
	if !decode(w, r, &in) {
		return
	}
	if in.Text != nil && strings.TrimSpace(*in.Text) == "" {
		writeError(w, http.StatusUnprocessableEntity, "text must not be empty")
		return
	}
	s.mu.Lock()
	n := noteOf(r)
	if in.Text != nil {
		n.Text = *in.Text
	}
	if in.Tags != nil {
		n.Tags = tagsOf(in.Tags)
	}
	out := *n
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteNote(w http.ResponseWriter, r *http.Request) {
	n, o := noteOf(r), ownerOf(r)
	s.mu.Lock()
	s.notes[o] = slices.DeleteFunc(s.notes[o], func(x *Note) bool { return x == n })
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) archiveNote(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := noteOf(r)
	already := n.Archived
	n.Archived = true
	out := *n
	s.mu.Unlock()
	if already {
		writeError(w, http.StatusConflict, fmt.Sprintf("note %d is already archived", out.ID))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// tagsOf returns tags sorted, without duplicates, never nil.
func tagsOf(tags []string) []string {
	out := slices.Clone(tags)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// decode reads the request's JSON body into v, or answers 400 and reports
// false.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not the JSON this route takes: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
