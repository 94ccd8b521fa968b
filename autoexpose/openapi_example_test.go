package autoexpose_test

import (
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
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
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	door.WriteReport(os.Stdout)
	tool := door.Tools()[0]
	schema, _ := json.Marshal(tool.InputSchema)
	fmt.Printf("%s: %s\n%s\n", tool.Name, tool.Description, schema)
	// Output:
	// TOOL      ROUTE           VERDICT  SCHEMA   REASON
	// add_item  POST /add_item  direct   openapi
	// add_item: Add an item to the cart
	// {"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":"integer","minimum":1}},"required":["sku"]}
}
