// Package users serves the shop's accounts.
package users

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"example.com/shop/httpx"
)

// User is an account, as the API answers it.
type User struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	Bio       string    `json:"bio,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Banned    bool      `json:"banned,omitempty"`
}

// Handler serves the accounts.
type Handler struct {
	mu    sync.Mutex
	users []User
}

// New returns a handler holding one admin.
func New() *Handler {
	return &Handler{users: []User{{ID: 1, Name: "Ada", Email: "ada@example.com", Role: "admin", CreatedAt: time.Unix(0, 0).UTC()}}}
}

func (h *Handler) find(r *http.Request) (*User, int) {
	id, err := strconv.ParseInt(chi.URLParam(r, "userID"), 10, 64)
	if err != nil {
		return nil, -1
	}
	for i := range h.users {
		if h.users[i].ID == id {
			return &h.users[i], i
		}
	}
	return nil, -1
}

// List answers the accounts, a page at a time; q matches names and
// emails, role keeps one role.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	limit, offset := httpx.Page(r)
	q := strings.ToLower(r.URL.Query().Get("q"))
	role := r.URL.Query().Get("role")
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []User
	for _, u := range h.users {
		if (q == "" || strings.Contains(strings.ToLower(u.Name+u.Email), q)) && (role == "" || u.Role == role) {
			out = append(out, u)
		}
	}
	total := len(out)
	out = out[min(offset, len(out)):min(offset+limit, len(out))]
	httpx.JSON(w, http.StatusOK, httpx.List[User]{Items: out, Total: total})
}

// Get answers one account.
func (h *Handler) Get(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	u, _ := h.find(r)
	if u == nil {
		httpx.NotFound(w)
		return
	}
	httpx.JSON(w, http.StatusOK, u)
}

// CreateRequest is a new account.
type CreateRequest struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	Password string `json:"password"`
	Role     string `json:"role,omitempty"`
}

func (c *CreateRequest) validate() error {
	if c.Name == "" || c.Email == "" {
		return errors.New("name and email are required")
	}
	if len(c.Password) < 8 {
		return errors.New("the password is too short")
	}
	return nil
}

// Create opens an account; name, email and a password of 8 characters or
// more are required.
func (h *Handler) Create(w http.ResponseWriter, r *http.Request) {
	var in CreateRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	if err := in.validate(); err != nil {
		httpx.Fail(w, http.StatusUnprocessableEntity, "invalid", err.Error())
		return
	}
	h.mu.Lock()
	u := User{ID: int64(len(h.users) + 1), Name: in.Name, Email: in.Email, Role: in.Role, CreatedAt: time.Unix(0, 0).UTC()}
	h.users = append(h.users, u)
	h.mu.Unlock()
	httpx.JSON(w, http.StatusCreated, u)
}

// UpdateRequest changes an account: a field left out stays.
type UpdateRequest struct {
	Name  *string `json:"name,omitempty"`
	Email *string `json:"email,omitempty"`
	Bio   *string `json:"bio,omitempty"`
}

// Update changes an account's name, email or bio.
func (h *Handler) Update(w http.ResponseWriter, r *http.Request) {
	var in UpdateRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	u, _ := h.find(r)
	if u == nil {
		httpx.NotFound(w)
		return
	}
	if in.Name != nil {
		u.Name = *in.Name
	}
	if in.Email != nil {
		u.Email = *in.Email
	}
	if in.Bio != nil {
		u.Bio = *in.Bio
	}
	httpx.JSON(w, http.StatusOK, u)
}

// Delete closes an account.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, i := h.find(r)
	if i < 0 {
		httpx.NotFound(w)
		return
	}
	h.users = append(h.users[:i], h.users[i+1:]...)
	w.WriteHeader(http.StatusNoContent)
}

// Me answers the signed-in account.
func (h *Handler) Me(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	httpx.JSON(w, http.StatusOK, h.users[0])
}

// ChangePassword sets a new password, given the current one.
func (h *Handler) ChangePassword(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	if in.Current == "" || in.New == "" {
		httpx.Fail(w, http.StatusBadRequest, "invalid", "current and new are required")
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]bool{"changed": true})
}

// Sessions answers the account's signed-in devices; active=true leaves
// out the expired ones.
func (h *Handler) Sessions(w http.ResponseWriter, r *http.Request) {
	active, _ := strconv.ParseBool(r.URL.Query().Get("active"))
	type session struct {
		Device   string    `json:"device"`
		LastSeen time.Time `json:"last_seen"`
		Active   bool      `json:"active"`
	}
	out := []session{{Device: "laptop", LastSeen: time.Unix(0, 0).UTC(), Active: true}}
	if !active {
		out = append(out, session{Device: "phone", LastSeen: time.Unix(0, 0).UTC()})
	}
	httpx.JSON(w, http.StatusOK, out)
}
