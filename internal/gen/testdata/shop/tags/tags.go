// Package tags serves the shop's tags, with plain handler functions over
// a package-level store.
package tags

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"
)

// Tag labels articles and products.
type Tag struct {
	Name  string `json:"name"`
	Color string `json:"color,omitempty"`
	Uses  int    `json:"uses"`
}

var (
	mu   sync.Mutex
	tags = map[string]*Tag{"sale": {Name: "sale", Color: "red"}}
)

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(b)
}

// ListTags answers every tag; prefix keeps those whose name starts so.
func ListTags(w http.ResponseWriter, r *http.Request) {
	prefix := r.FormValue("prefix")
	mu.Lock()
	defer mu.Unlock()
	out := []Tag{}
	for name, t := range tags {
		if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
			out = append(out, *t)
		}
	}
	answer(w, http.StatusOK, out)
}

// CreateTag adds a tag; name is required.
func CreateTag(w http.ResponseWriter, r *http.Request) {
	var t Tag
	if err := json.NewDecoder(r.Body).Decode(&t); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if t.Name == "" {
		http.Error(w, "name is required", http.StatusBadRequest)
		return
	}
	mu.Lock()
	tags[t.Name] = &t
	mu.Unlock()
	answer(w, http.StatusCreated, t)
}

// DeleteTag removes a tag.
func DeleteTag(w http.ResponseWriter, r *http.Request) {
	mu.Lock()
	delete(tags, chi.URLParam(r, "name"))
	mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// MergeTags folds the tag from into the tag into.
func MergeTags(w http.ResponseWriter, r *http.Request) {
	var in struct {
		From string `json:"from"`
		Into string `json:"into"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	from, into := tags[in.From], tags[in.Into]
	if from == nil || into == nil {
		http.Error(w, "no such tag", http.StatusNotFound)
		return
	}
	into.Uses += from.Uses
	delete(tags, in.From)
	answer(w, http.StatusOK, into)
}

// RenameTag renames a tag, given its new name and color.
func RenameTag(w http.ResponseWriter, r *http.Request) {
	var in map[string]string
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	t := tags[chi.URLParam(r, "name")]
	if t == nil {
		http.NotFound(w, r)
		return
	}
	delete(tags, t.Name)
	t.Name, t.Color = in["name"], in["color"]
	tags[t.Name] = t
	answer(w, http.StatusOK, t)
}
