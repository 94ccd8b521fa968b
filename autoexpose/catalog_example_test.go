package autoexpose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A client finds the catalog with resources/list and reads it with
// resources/read: one JSON text, which a Go client decodes into the fields
// it reads.
func ExampleDoor_catalog() {
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather,
		autoexpose.Describe("Get the current weather in a city."),
		autoexpose.Annotate(mcp.ToolAnnotations{ReadOnlyHint: true})))
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	door, err := autoexpose.Install(r, autoexpose.Config{
		Name:               "weather",
		ExposeToolsOverMCP: true,
		MCP:                autoexpose.MCPConfig{Stateful: true, Catalog: true},
		Logger:             slog.New(slog.DiscardHandler),
		ExtendServer:       func(s *mcp.Server) { server = s },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()

	// A client of the door's MCP server, in memory.
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

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	uri := list.Resources[0].URI
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(uri, read.Contents[0].MIMEType)
	var catalog struct { // the fields this example reads of the catalog's JSON
		Sessions struct {
			Policy        string `json:"policy"`
			IdleTimeoutMs int64  `json:"idle_timeout_ms"`
		} `json:"sessions"`
		Limits struct {
			MaxBodyBytes int64 `json:"max_body_bytes"`
		} `json:"limits"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &catalog); err != nil {
		log.Fatal(err)
	}
	fmt.Println(catalog.Sessions.Policy, catalog.Sessions.IdleTimeoutMs, catalog.Limits.MaxBodyBytes)
	indented, _ := json.MarshalIndent(catalog.Tools, "", "  ")
	fmt.Println(string(indented))
	// Output:
	// weather://catalog application/json
	// stateful 600000 4194304
	// [
	//   {
	//     "name": "get_weather",
	//     "description": "Get the current weather in a city.",
	//     "inputSchema": {
	//       "type": "object",
	//       "properties": {
	//         "city": {
	//           "type": "string",
	//           "description": "the city to get the weather for"
	//         }
	//       },
	//       "required": [
	//         "city"
	//       ],
	//       "additionalProperties": false
	//     },
	//     "outputSchema": {
	//       "type": "object",
	//       "properties": {
	//         "weather": {
	//           "type": "string"
	//         }
	//       },
	//       "required": [
	//         "weather"
	//       ],
	//       "additionalProperties": false
	//     },
	//     "annotations": {
	//       "idempotentHint": false,
	//       "readOnlyHint": true
	//     },
	//     "route": "POST /get_weather"
	//   }
	// ]
}
