// Package rest is a small response library of the kind many chi apps
// use, in a module of its own: JSON answers and errors in one call.
package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// JSON is a JSON object answered as it is.
type JSON map[string]any

// RenderJSON answers data as JSON, with status 200.
func RenderJSON(w http.ResponseWriter, data any) {
	buf := &bytes.Buffer{}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// EncodeJSON answers v as JSON with the status code.
func EncodeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	writeJSON(w, v)
}

func writeJSON(out io.Writer, v any) {
	_ = json.NewEncoder(out).Encode(v)
}

// SendErrorJSON answers {"error": msg, "details": err} with the status
// code.
func SendErrorJSON(w http.ResponseWriter, r *http.Request, code int, err error, msg string) {
	details := ""
	if err != nil {
		details = err.Error()
	}
	EncodeJSON(w, code, JSON{"error": msg, "details": details})
}

// ErrEmptyBody is DecodeJSON's error for a request without a body.
var ErrEmptyBody = errors.New("empty body")

// DecodeJSON reads the request's JSON body into v.
func DecodeJSON(r *http.Request, v any) error {
	if r.Body == nil {
		return ErrEmptyBody
	}
	defer r.Body.Close()
	return json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(v)
}
