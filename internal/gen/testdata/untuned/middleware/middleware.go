// Package middleware holds the app's middlewares: a generic body
// validator, and the staff check.
package middleware

import (
	"context"
	"encoding/json"
	"net/http"
)

type bodyKey struct{}

// Validate decodes the request's JSON body into a T, checks it with its
// Validate method, and hands it on in the request's context, where Body
// finds it.
func Validate[T any, PT interface {
	*T
	Validate() error
}](next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v T
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, "invalid JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := PT(&v).Validate(); err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bodyKey{}, &v)))
	})
}

// Body returns the body Validate decoded for the request.
func Body[T any](r *http.Request) *T {
	v, _ := r.Context().Value(bodyKey{}).(*T)
	return v
}

// IsStaff reports whether the request is a staff member's.
func IsStaff(r *http.Request) bool {
	return r.Header.Get("Authorization") == "Bearer staff"
}
