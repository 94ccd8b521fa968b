package autoexpose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

// With an mcp.rest block, every route of a REST-shaped router is a tool:
// nested, parameterized, of any of the listed methods. Its path
// parameters, query parameters and JSON body are one input object.
func ExampleInstall_rest() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: notes
expose_tools_over_mcp: true
mcp:
  rest:
    methods: [POST, PATCH, DELETE]
    names: {"GET /api/notes/{id}": read_note}
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	handler := func(w http.ResponseWriter, r *http.Request) {}

	r := chi.NewRouter()
	r.Get("/metrics", handler)
	r.Route("/api/notes", func(r chi.Router) {
		r.Get("/", handler)
		r.Post("/", handler)
		r.Get("/{id}", handler)
		r.Patch("/{id:[0-9]+}", handler)
		r.Delete("/{id:[0-9]+}", handler)
		r.Post("/{id:[0-9]+}/archive", handler)
	})

	var server *mcp.Server // the door's go-sdk server, for a client in memory
	cfg.ExtendServer = func(s *mcp.Server) { server = s }
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())

	// update_note's input schema, as an MCP client lists it (through a
	// client of the door's server in memory).
	ctx := context.Background()
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx, nil) {
		if err == nil && t.Name == "update_note" {
			schema, _ := json.Marshal(t.InputSchema)
			fmt.Printf("%s: %s\n", t.Name, schema)
		}
	}
	// Output:
	// TOOL          ROUTE                                VERDICT  SCHEMA      ARGUMENTS               REASON
	// archive_note  POST /api/notes/{id:[0-9]+}/archive  direct   permissive  id (path); any (body)
	// create_note   POST /api/notes/                     direct   permissive  any (body)
	// delete_note   DELETE /api/notes/{id:[0-9]+}        direct   permissive  id (path); any (query)
	// read_note     GET /api/notes/{id}                  direct   permissive  id (path); any (query)
	// update_note   PATCH /api/notes/{id:[0-9]+}         direct   permissive  id (path); any (body)
	// -             GET /api/notes/                      skipped  -           -                       GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names
	// -             GET /metrics                         skipped  -           -                       GET routes are tools only when GET is among mcp.rest.methods, or the route is named in mcp.rest.names
	// update_note: {"properties":{"id":{"minLength":1,"pattern":"^[0-9]+$","type":"string"}},"required":["id"],"type":"object"}
}
