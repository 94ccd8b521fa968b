// Package edge holds handlers of the shapes mcpdoor gen must read right,
// or leave alone, beyond the blog's: helpers that decode and answer for
// the handler, validators, query helpers, answers of several kinds.
package edge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Address is where a thing is.
type Address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city"`
}

// Meta is a thing's bookkeeping, nested under "meta".
type Meta struct {
	Owner string `json:"owner"`
}

// Thing is what the edge API keeps.
type Thing struct {
	Name    string  `json:"name"`
	Size    int     `json:"size"`
	Count   int64   `json:"count,string"`
	Address Address `json:"address"`
	Meta    `json:"meta"`
	Secret  string `json:"-"`
	note    string
}

// Validate refuses a thing without a name or a positive size.
func (t *Thing) Validate() error {
	if t.Name == "" {
		return errors.New("name is required")
	}
	if t.Size <= 0 {
		return fmt.Errorf("size %d is not positive", t.Size)
	}
	if t.Address.City == "" || t.Meta.Owner == "" {
		return errors.New("a city and an owner are required")
	}
	return nil
}

func decodeJSON(r *http.Request, v any) error {
	return json.NewDecoder(r.Body).Decode(v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func intParam(r *http.Request, name string, def int) int {
	v := r.URL.Query().Get(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

// CreateThing stores a thing, checked by its Validate method.
func CreateThing(w http.ResponseWriter, r *http.Request) {
	var in Thing
	if err := decodeJSON(r, &in); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	if err := in.Validate(); err != nil {
		fail(w, http.StatusUnprocessableEntity, err)
		return
	}
	in.note = "created" // unexported: in neither schema
	writeJSON(w, http.StatusCreated, in)
}

// PatchThing changes a stored thing: what the body leaves out stays.
func PatchThing(w http.ResponseWriter, r *http.Request) {
	in := Thing{Name: "kept", Size: 1}
	if err := decodeJSON(r, &in); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	if in.Name == "" {
		fail(w, http.StatusBadRequest, errors.New("the name cannot be emptied"))
		return
	}
	writeJSON(w, http.StatusOK, in)
}

// Rename takes a name from either field.
func Rename(w http.ResponseWriter, r *http.Request) {
	type input struct {
		Old string `json:"old"`
		New string `json:"new"`
	}
	var in input
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if in.Old == "" && in.New == "" {
		http.Error(w, "old or new", http.StatusBadRequest)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"renamed": true, "to": in.New})
}

// Find searches things; q is required, offset skips some.
func Find(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if q == "" {
		http.Error(w, "q is required", http.StatusBadRequest)
		return
	}
	offset := intParam(r, "offset", 0)
	fields := strings.Split(r.FormValue("fields"), ",")
	writeJSON(w, http.StatusOK, map[string]any{"q": q, "offset": offset, "fields": fields})
}

// Export answers the things as JSON, or as CSV when format=csv.
func Export(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("format") == "csv" {
		fmt.Fprintln(w, "name,size")
		return
	}
	writeJSON(w, http.StatusOK, []Thing{})
}

// Either answers one of two types.
func Either(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("short") {
		writeJSON(w, http.StatusOK, Meta{})
		return
	}
	writeJSON(w, http.StatusOK, Thing{})
}

// Bulk takes a JSON array of things.
func Bulk(w http.ResponseWriter, r *http.Request) {
	var in []Thing
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Strict refuses members it does not know, at any depth.
func Strict(w http.ResponseWriter, r *http.Request) {
	var in Address
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, http.StatusOK, in)
}

// Loose takes any object.
func Loose(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	json.NewDecoder(r.Body).Decode(&in)
	writeJSON(w, http.StatusOK, in)
}

// bindForm fills dst from a form, by reflection gen cannot follow: the
// tests teach it with -decoder.
func bindForm(r *http.Request, dst any) error {
	return nil
}

// Taught decodes with a decoder gen is taught.
func Taught(w http.ResponseWriter, r *http.Request) {
	var in Address
	if err := bindForm(r, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Report is a handler type: its ServeHTTP method is the handler.
type Report struct{}

// ServeHTTP answers the report.
func (Report) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Meta{Owner: "report"})
}

// Resource is a generic resource.
type Resource[T any] struct{ items []T }

// Add decodes an item of the resource's type.
func (res *Resource[T]) Add(w http.ResponseWriter, r *http.Request) {
	var in T
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res.items = append(res.items, in)
	w.WriteHeader(http.StatusNoContent)
}

// Ping answers pong.
var Ping http.HandlerFunc = func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, "pong")
}
