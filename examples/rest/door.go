package main

import (
	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// newServer returns the notes API with its MCP door: newAPI, with cfg's
// session middleware, and autoexpose.Install over it; the door is what to
// serve (it serves the router), and what to close. The handlers are
// newAPI's, unchanged; what MCP clients are told of each tool comes from
// declarations (unless cfg.Declared is set) and the config's mcp.rest
// block (see server.yaml).
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	r, err := newRouter(&cfg)
	if err != nil {
		return nil, err
	}
	return autoexpose.Install(r, cfg)
}

// newRouter returns the notes API alone: newAPI with cfg's session
// middleware. It makes cfg's sessions (cfg.UseSessions) and, when unset,
// sets cfg.Declared.
func newRouter(cfg *autoexpose.Config) (chi.Router, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, err
	}
	if cfg.Declared == nil {
		cfg.Declared = declarations()
	}
	return newAPI(Config{Sessions: sessions.Middleware}), nil
}

// declarations describe the notes API's tools for MCP clients, by tool
// name: a description each, and the arguments of the routes whose plain
// handlers carry no schema. A REST tool's path parameters ({id}, {user})
// are added to its input schema whether declared or not; for a GET route,
// the other declared properties are its query parameters, and for a POST
// or PATCH route, its JSON body's members.
func declarations() map[string]autoexpose.Declaration {
	limit := autoexpose.SchemaFor[struct {
		Tag   string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
		Limit int    `json:"limit,omitempty" jsonschema:"at most this many notes, newest first (default 20)"`
	}]()
	limit.Properties["limit"].Minimum, limit.Properties["limit"].Maximum = ptr(1.0), ptr(float64(maxLimit))
	search := autoexpose.SchemaFor[struct {
		Q string `json:"q" jsonschema:"the text to look for, case-insensitively"`
	}]()
	search.Properties["q"].MinLength = ptr(1)
	// The id of a note, as its routes read it (strconv.Atoi): described
	// here, or it would be any non-empty string without a "/".
	withID := func(s *jsonschema.Schema) *jsonschema.Schema {
		if s.Properties == nil {
			s.Properties = map[string]*jsonschema.Schema{}
		}
		s.Properties["id"] = &jsonschema.Schema{Type: "string", Pattern: "^[0-9]+$", Description: "the note's id"}
		return s
	}
	none := func() *jsonschema.Schema { return autoexpose.SchemaFor[struct{}]() }
	return map[string]autoexpose.Declaration{
		"list_notes":   {Description: "List your notes, newest first.", Input: limit},
		"search_notes": {Description: "Find your notes whose text contains q.", Input: search},
		"create_note":  {Description: "Write a new note.", Input: autoexpose.SchemaFor[NewNote]()},
		"get_note":     {Description: "Read one note.", Input: withID(none())},
		"update_note":  {Description: "Change a note's text or tags.", Input: withID(autoexpose.SchemaFor[NotePatch]())},
		"delete_note":  {Description: "Delete a note.", Input: withID(none())},
		"archive_note": {Description: "Archive a note; a note archived already is refused (409).", Input: withID(none())},
		"admin_stats":  {Description: "Count the session's users, notes and archived notes (admin token).", Input: none()},
		"delete_admin_user_notes": {Description: "Delete every note of a user (admin token).", Input: autoexpose.SchemaFor[struct {
			User string `json:"user" jsonschema:"the user's name"`
		}]()},
	}
}

func ptr[T any](v T) *T { return &v }
