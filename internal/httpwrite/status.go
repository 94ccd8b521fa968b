// Package httpwrite holds the http.ResponseWriter wrappers that the door's
// layers share: one owner for each idea of what a handler has written.
package httpwrite

import "net/http"

// A StatusWriter records the status a handler answers: the first final
// code it writes with WriteHeader, or 200 at its first Write. An
// informational status (1xx, such as 103 Early Hints) goes out and is not
// recorded, for the answer is still to come; 101 Switching Protocols is
// final, as net/http treats it.
type StatusWriter struct {
	http.ResponseWriter
	// Status is the status recorded: 0 until the handler has answered.
	Status int
}

// WriteHeader records code when it is the first final status, and writes
// it.
func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 && Final(code) {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records 200 when no status was, and writes b.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Final reports whether code ends a response's status line, as net/http
// reads it: every code but the informational ones (1xx) except 101.
func Final(code int) bool {
	return code >= 200 || code == http.StatusSwitchingProtocols
}
