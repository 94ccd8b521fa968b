package main

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
)

// Stats is the answer of GET /api/admin/stats: the session's counts.
type Stats struct {
	Users    int `json:"users"`
	Notes    int `json:"notes"`
	Archived int `json:"archived"`
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	sid := session.ID(r)
	var st Stats
	s.mu.Lock()
	for o, notes := range s.notes {
		if o.session != sid || len(notes) == 0 {
			continue
		}
		st.Users++
		for _, n := range notes {
			st.Notes++
			if n.Archived {
				st.Archived++
			}
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) purgeUser(w http.ResponseWriter, r *http.Request) {
	o := owner{session.ID(r), chi.URLParam(r, "user")}
	s.mu.Lock()
	n := len(s.notes[o])
	delete(s.notes, o)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]int{"deleted": n})
}
