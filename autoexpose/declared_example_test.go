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

// AddNote is the input of add_note.
type AddNote struct {
	Text string `json:"text" jsonschema:"the note's text"`
}

// A plain handler says nothing of its tool: Config.Declared describes it,
// by tool name, without touching the handler.
func ExampleConfig_declared() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: notes
expose_tools_over_mcp: true
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Declared = map[string]autoexpose.Declaration{
		"add_note": {Description: "Add a note.", Input: autoexpose.SchemaFor[AddNote]()},
	}
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	cfg.ExtendServer = func(s *mcp.Server) { server = s }
	r := chi.NewRouter()
	r.Post("/add_note", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"id":1}`)) })
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())

	// What an MCP client lists, through a client of the door's server in
	// memory.
	cs := connect(server, nil)
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, tool := range list.Tools {
		schema, _ := json.Marshal(tool.InputSchema)
		fmt.Printf("%s: %s\n%s\n", tool.Name, tool.Description, schema)
	}
	// Output:
	// TOOL      ROUTE           VERDICT  SCHEMA    REASON
	// add_note  POST /add_note  direct   declared
	// add_note: Add a note.
	// {"additionalProperties":false,"properties":{"text":{"description":"the note's text","type":"string"}},"required":["text"],"type":"object"}
}
