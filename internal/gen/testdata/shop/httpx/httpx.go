// Package httpx holds the shop's HTTP helpers: decoding bodies, answering
// JSON and errors, reading a page's bounds.
package httpx

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// MaxBody caps a request body.
const MaxBody = 1 << 20

// Decode reads a JSON body into v.
func Decode(w http.ResponseWriter, r *http.Request, v any) error {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if err := json.NewDecoder(r.Body).Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// DecodeAs reads a JSON body as a T.
func DecodeAs[T any](r *http.Request) (T, error) {
	var v T
	err := json.NewDecoder(r.Body).Decode(&v)
	return v, err
}

// JSON answers v with the status.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Error is the body of an error answer.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Fail answers an error.
func Fail(w http.ResponseWriter, status int, code, msg string) {
	JSON(w, status, Error{Code: code, Message: msg})
}

// BadRequest answers 400 with the error.
func BadRequest(w http.ResponseWriter, err error) {
	Fail(w, http.StatusBadRequest, "bad_request", err.Error())
}

// NotFound answers 404.
func NotFound(w http.ResponseWriter) {
	Fail(w, http.StatusNotFound, "not_found", "not found")
}

// Page reads the limit and offset query parameters, with defaults.
func Page(r *http.Request) (limit, offset int) {
	limit, offset = 20, 0
	q := r.URL.Query()
	if v, err := strconv.Atoi(q.Get("limit")); err == nil && v > 0 {
		limit = v
	}
	if v, err := strconv.Atoi(q.Get("offset")); err == nil && v >= 0 {
		offset = v
	}
	return limit, offset
}

// List is a page of items.
type List[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
}
