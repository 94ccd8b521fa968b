package autoexpose_test

import (
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// The REST examples of the README and docs/rest.md, word for word (a test
// of internal/doccheck checks it).

func requireUser(next http.Handler) http.Handler { return next }

func listNotes(http.ResponseWriter, *http.Request)   {}
func createNote(http.ResponseWriter, *http.Request)  {}
func getNote(http.ResponseWriter, *http.Request)     {}
func updateNote(http.ResponseWriter, *http.Request)  {}
func deleteNote(http.ResponseWriter, *http.Request)  {}
func archiveNote(http.ResponseWriter, *http.Request) {}

// A tool route: the route's name is the tool's, its body the arguments.
func ExampleInstall_toolRoute() {
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Post("/archive_note", archiveNote)
	if _, err := autoexpose.Install(r, cfg); err != nil {
		log.Fatal(err)
	}
}

// A REST API read as it is (mcp.rest in the config): nested routes, URL
// parameters, no handler changes.
func ExampleInstall_restRoutes() {
	cfg, err := autoexpose.LoadConfig("server.yaml") // with an mcp.rest block
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Route("/api/notes", func(r chi.Router) {
		r.Use(requireUser)
		r.Get("/", listNotes)                // list_notes
		r.Post("/", createNote)              // create_note
		r.Get("/{id}", getNote)              // get_note
		r.Patch("/{id:[0-9]+}", updateNote)  // update_note
		r.Delete("/{id:[0-9]+}", deleteNote) // delete_note
		r.Post("/{id}/archive", archiveNote) // archive_note
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
}

// A declaration gives a REST tool its query parameters.
func ExampleConfig_restQuery() {
	cfg, err := autoexpose.LoadConfig("server.yaml") // with an mcp.rest block
	if err != nil {
		log.Fatal(err)
	}
	cfg.Declared = map[string]autoexpose.Declaration{
		// GET /api/notes/: tag and limit are query parameters.
		"list_notes": {Input: autoexpose.SchemaFor[struct {
			Tag   string `json:"tag,omitempty"`
			Limit int    `json:"limit,omitempty"`
		}]()},
	}
	r := chi.NewRouter()
	r.Get("/api/notes/", listNotes)
	if _, err := autoexpose.Install(r, cfg); err != nil {
		log.Fatal(err)
	}
}

// Wrap reads an http.ServeMux's REST routes from mcp.rest.names.
func ExampleWrap_rest() {
	cfg, err := autoexpose.LoadConfig("server.yaml") // mcp.rest.names: {"GET /notes/{id}": get_note, ...}
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /notes/{id}", getNote)
	mux.HandleFunc("PATCH /notes/{id}", updateNote)
	door, err := autoexpose.Wrap(mux, cfg)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", door))
}
