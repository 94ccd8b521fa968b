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

// A plain handler's tool takes its schema, description and annotations from
// the server's OpenAPI document.
func ExampleConfig_openAPI() {
	cfg := autoexpose.Config{
		Name:               "shop",
		ExposeToolsOverMCP: true,
		MCP:                autoexpose.MCPConfig{SessionSecret: []string{"an example secret of at least 32 bytes"}},
		Logger:             slog.New(slog.DiscardHandler),
		OpenAPI: []byte(`openapi: 3.1.0
info: {title: shop, version: "1"}
paths:
  /add_item:
    post:
      summary: Add an item to the cart
      x-mcp-idempotent: false
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Item'}
components:
  schemas:
    Item:
      type: object
      required: [sku]
      properties:
        sku: {type: string}
        quantity: {type: integer, minimum: 1}
`),
	}
	r := chi.NewRouter()
	r.Post("/add_item", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"ok":true}`)) })
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	cfg.ExtendServer = func(s *mcp.Server) { server = s }
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())

	// What an MCP client lists, through a client of the door's server in
	// memory.
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
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	tool := list.Tools[0]
	schema, _ := json.Marshal(tool.InputSchema)
	fmt.Printf("%s: %s\n%s\n", tool.Name, tool.Description, schema)
	// Output:
	// TOOL      ROUTE           VERDICT  SCHEMA   REASON
	// add_item  POST /add_item  direct   openapi
	// add_item: Add an item to the cart
	// {"properties":{"quantity":{"minimum":1,"type":"integer"},"sku":{"type":"string"}},"required":["sku"],"type":"object"}
}
