package autoexpose_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

// TimeRequest is the input of get_time.
type TimeRequest struct {
	Zone string `json:"zone,omitempty" jsonschema:"an IANA time zone; default UTC"`
}

func getTime(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"time":"12:00"}`))
}

// Wrap serves a plain net/http handler, here an http.ServeMux, which has
// no route table to read: its tools are declared, and every call replays
// through the mux.
func ExampleWrap() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: clock
expose_tools_over_mcp: true
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	cfg.ExtendServer = func(s *mcp.Server) { server = s }

	mux := http.NewServeMux()
	mux.HandleFunc("POST /get_time", getTime)
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"get_time": {Description: "The current time.", Input: autoexpose.SchemaFor[TimeRequest]()},
	}
	door, err := autoexpose.Wrap(mux, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())

	// A tool call, through a client of the door's server in memory.
	cs := connect(server, nil)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_time", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Serve the Door, which serves the mux:
	// log.Fatal(http.ListenAndServe("127.0.0.1:8080", door))

	// Output:
	// TOOL      ROUTE         VERDICT  SCHEMA    REASON
	// get_time  POST /{tool}  replay   declared  a wrapped handler: every call replays through it
	// {"time":"12:00"}
}
