package main

// The nethttp example: a notes service on a plain
// http.ServeMux, which has no route table for Install to read, served over
// MCP with autoexpose.Wrap. Its tools are declared once, in Config.CatchAll.

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// AddNote is the input of add_note.
type AddNote struct {
	Text string   `json:"text" jsonschema:"the note's text"`
	Tags []string `json:"tags,omitempty" jsonschema:"labels to find the note by"`
}

// ListNotes is the input of list_notes.
type ListNotes struct {
	Tag string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
}

// DeleteNote is the input of delete_note.
type DeleteNote struct {
	ID int `json:"id" jsonschema:"the note's id"`
}

// Note is one stored note.
type Note struct {
	ID   int      `json:"id"`
	Text string   `json:"text"`
	Tags []string `json:"tags"`
}

// Server holds every session's notes.
type Server struct {
	mu    sync.Mutex
	notes map[string][]Note // session id → notes, in order
	next  int
}

// newServer returns the notes service with the MCP door in front of it.
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, err
	}
	s := &Server{notes: make(map[string][]Note)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /add_note", s.addNote)
	mux.HandleFunc("POST /list_notes", s.listNotes)
	mux.HandleFunc("POST /delete_note", s.deleteNote)

	// The mux has no route table mcpdoor can read: its tools are declared
	// here, and the mux is their dispatcher.
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"add_note":    {Description: "Add a note.", Input: autoexpose.SchemaFor[AddNote]()},
		"delete_note": {Description: "Delete a note by id.", Input: autoexpose.SchemaFor[DeleteNote]()},
		"list_notes": {
			Description: "List this session's notes, oldest first.",
			Input:       autoexpose.SchemaFor[ListNotes](),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		},
	}
	return autoexpose.Wrap(sessions.Middleware(mux), cfg)
}

func (s *Server) addNote(w http.ResponseWriter, r *http.Request) {
	var in AddNote
	if !decode(w, r, &in) {
		return
	}
	if in.Text == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": "text must not be empty"})
		return
	}
	s.mu.Lock()
	s.next++
	n := Note{ID: s.next, Text: in.Text, Tags: append([]string{}, in.Tags...)}
	id := session.ID(r)
	s.notes[id] = append(s.notes[id], n)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, n)
}

func (s *Server) listNotes(w http.ResponseWriter, r *http.Request) {
	var in ListNotes
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	notes := []Note{}
	for _, n := range s.notes[session.ID(r)] {
		if in.Tag == "" || slices.Contains(n.Tags, in.Tag) {
			notes = append(notes, n)
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string][]Note{"notes": notes})
}

func (s *Server) deleteNote(w http.ResponseWriter, r *http.Request) {
	var in DeleteNote
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := session.ID(r)
	i := slices.IndexFunc(s.notes[id], func(n Note) bool { return n.ID == in.ID })
	if i < 0 {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no note with this id"})
		return
	}
	s.notes[id] = slices.Delete(s.notes[id], i, i+1)
	writeJSON(w, http.StatusOK, map[string]int{"deleted": in.ID})
}

// decode reads a JSON body into v, answering 400 when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request body: " + err.Error()})
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
