package main

import (
	"context"
	"net/http"
	"strings"
)

type userKey struct{}

// requireUser lets through a request with a user's bearer token, and puts
// the user in its context.
func (s *Server) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := s.users[bearer(r)]
		if !ok {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, http.StatusUnauthorized, "missing or unknown bearer token")
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// requireAdmin lets through a request with the admin token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if bearer(r) != s.admin {
			writeError(w, http.StatusForbidden, "the admin token is required")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns the request's bearer token, or "".
func bearer(r *http.Request) string {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return token
}

// user returns the user requireUser found.
func user(r *http.Request) string {
	u, _ := r.Context().Value(userKey{}).(string)
	return u
}
