// Package wrap adapts handlers: it logs them, and lets a handler return
// its error.
package wrap

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Handler logs each request that the handler it wraps serves.
type Handler struct {
	next http.HandlerFunc
	log  *slog.Logger
}

// NewHandler wraps next.
func NewHandler(next http.HandlerFunc, log *slog.Logger) *Handler {
	return &Handler{next: next, log: log}
}

// ServeHTTP serves the request with the wrapped handler, and logs it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	h.next(w, r)
	h.log.Debug("served", "method", r.Method, "path", r.URL.Path, "took", time.Since(start))
}

// An ErrorHandler is a handler that returns its error, for E to answer.
type ErrorHandler func(w http.ResponseWriter, r *http.Request) error

// A StatusError is an error with the status it is answered with.
type StatusError struct {
	Status int
	Err    error
}

func (e *StatusError) Error() string { return e.Err.Error() }

// E serves fn, answering the error it returns as JSON, with the status
// a *StatusError carries, else 500.
func E(fn ErrorHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		status := http.StatusInternalServerError
		var se *StatusError
		if errors.As(err, &se) {
			status = se.Status
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
	}
}
