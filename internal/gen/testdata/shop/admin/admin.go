// Package admin serves the shop's back office.
package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// Stats are the shop's figures.
type Stats struct {
	Users    int     `json:"users"`
	Orders   int     `json:"orders"`
	Revenue  float64 `json:"revenue"`
	Uptime   string  `json:"uptime"`
	Degraded bool    `json:"degraded"`
}

// Entry is a line of the audit log.
type Entry struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Target string    `json:"target,omitempty"`
}

// API serves the back office.
type API struct {
	mu    sync.Mutex
	flags map[string]bool
	log   []Entry
}

// New returns the back office.
func New() *API {
	return &API{flags: map[string]bool{"new_checkout": false}, log: []Entry{{At: time.Unix(0, 0).UTC(), Actor: "ada", Action: "login"}}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// Stats answers the shop's figures.
func (a *API) Stats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, Stats{Users: 1, Orders: 0, Uptime: "1h"})
}

// Audit answers the audit log: actor and action filter it, from and to
// (RFC 3339) bound it.
func (a *API) Audit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	actor, action := q.Get("actor"), q.Get("action")
	from, _ := time.Parse(time.RFC3339, q.Get("from"))
	to, err := time.Parse(time.RFC3339, q.Get("to"))
	if err != nil {
		to = time.Now()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []Entry{}
	for _, e := range a.log {
		if (actor == "" || e.Actor == actor) && (action == "" || e.Action == action) && !e.At.Before(from) && e.At.Before(to) {
			out = append(out, e)
		}
	}
	writeJSON(w, out)
}

// Ban is a ban of an account.
type Ban struct {
	Reason string    `json:"reason"`
	Until  time.Time `json:"until,omitzero"`
}

// BanUser bans an account, for a reason, until a time or for good.
func (a *API) BanUser(w http.ResponseWriter, r *http.Request) {
	var in Ban
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if in.Reason == "" {
		http.Error(w, "a reason is required", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.log = append(a.log, Entry{At: time.Unix(0, 0).UTC(), Actor: "admin", Action: "ban", Target: chi.URLParam(r, "userID")})
	a.mu.Unlock()
	writeJSON(w, map[string]any{"banned": chi.URLParam(r, "userID"), "reason": in.Reason})
}

// Flags answers the feature flags.
func (a *API) Flags(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	writeJSON(w, a.flags)
}

// SetFlags sets feature flags, by name.
func (a *API) SetFlags(w http.ResponseWriter, r *http.Request) {
	var in map[string]bool
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, v := range in {
		a.flags[k] = v
	}
	writeJSON(w, a.flags)
}

// Reindex rebuilds the search index; full=true drops it first.
func (a *API) Reindex(w http.ResponseWriter, r *http.Request) {
	full, _ := strconv.ParseBool(r.URL.Query().Get("full"))
	w.WriteHeader(http.StatusAccepted)
	writeJSON(w, map[string]bool{"started": true, "full": full})
}

// ExportUsers answers the accounts as CSV.
func (a *API) ExportUsers(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv")
	fmt.Fprintln(w, "id,name")
	fmt.Fprintln(w, "1,Ada")
}

// Health says the shop is up.
func Health(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("ok"))
}
