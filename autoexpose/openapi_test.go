package autoexpose

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// shopDoc describes a shop's routes. /order has a typed handler, /note a
// declaration, the others are plain handlers.
const shopDoc = `openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /add_item:
    post:
      summary: Add an item to the cart
      x-mcp-idempotent: false
      x-mcp-title: Add item
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Item'}
  /order:
    post:
      summary: Place the order
      x-mcp-destructive: true
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {city: {type: integer}}}
  /note:
    post:
      summary: Leave a note
      description: The note is kept with the order.
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {text: {type: string}}}
  /peek:
    post:
      description: Look at the cart.
      x-mcp-read-only: true
  /upload:
    post:
      summary: Upload a receipt
      requestBody:
        content:
          image/png: {}
  /reset:
    post:
      x-mcp-exclude: true
  /ghost:
    post:
      summary: A route the server does not have
  /items/{id}:
    get:
      summary: Not a tool route
      x-mcp-hidden: true
components:
  schemas:
    Item:
      type: object
      required: [sku]
      properties:
        sku: {type: string}
        quantity: {type: integer, minimum: 1, nullable: true}
`

func shopRouter() chi.Router {
	r := chi.NewRouter()
	for _, p := range []string{"/add_item", "/note", "/peek", "/upload", "/reset", "/plain"} {
		r.Post(p, ok)
	}
	r.Method("POST", "/order", Handler(getWeather))
	return r
}

func shopConfig(logs *bytes.Buffer) Config {
	cfg := enabled(MCPConfig{})
	cfg.OpenAPI = []byte(shopDoc)
	cfg.Declared = map[string]Declaration{"note": {Input: SchemaFor[struct {
		Body string `json:"body"`
	}]()}}
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	}
	return cfg
}

// TestOpenAPITools: each tool takes from the document what neither a
// declaration nor a typed handler gives it.
func TestOpenAPITools(t *testing.T) {
	door, err := Install(shopRouter(), shopConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		source                          string
		description, input, annotations string
	}{
		"add_item": {harvest.SourceOpenAPI, "Add an item to the cart",
			`{"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":["integer","null"],"minimum":1}},"required":["sku"]}`,
			`{"idempotentHint":false,"readOnlyHint":false,"title":"Add item"}`},
		// The typed handler's schema wins; the document fills in the
		// description and annotations it does not give.
		"order": {harvest.SourceTyped, "Place the order",
			`{"type":"object","properties":{"city":{"type":"string","description":"the city"}},"required":["city"],"additionalProperties":false}`,
			`{"destructiveHint":true,"idempotentHint":false,"readOnlyHint":false}`},
		// The declaration's schema wins over the document's.
		"note": {harvest.SourceDeclared, "Leave a note\n\nThe note is kept with the order.",
			`{"type":"object","properties":{"body":{"type":"string"}},"required":["body"],"additionalProperties":false}`, `null`},
		"peek": {harvest.SourceOpenAPI, "Look at the cart.", `{"type":"object","additionalProperties":false}`,
			`{"idempotentHint":false,"readOnlyHint":true}`},
		"upload": {harvest.SourcePermissive, "Upload a receipt", `{"type":"object"}`, `null`},
		"plain":  {harvest.SourcePermissive, "POST /plain", `{"type":"object"}`, `null`},
	}
	tools := exposed(door)
	if len(tools) != len(want) {
		t.Fatalf("tools %q, want %d", toolNames(door), len(want))
	}
	for _, tl := range tools {
		w := want[tl.Name]
		input, _ := json.Marshal(tl.InputSchema)
		annotations, _ := json.Marshal(tl.Annotations)
		if tl.SchemaSource != w.source || tl.Description != w.description || string(input) != w.input || string(annotations) != w.annotations {
			t.Errorf("%s: source %s, description %q,\n  input %s\n  annotations %s\nwant %s, %q,\n  input %s\n  annotations %s",
				tl.Name, tl.SchemaSource, tl.Description, input, annotations, w.source, w.description, w.input, w.annotations)
		}
	}
}

// TestOpenAPIReport: the report says where each schema came from, which
// routes the document keeps off MCP, and which operations no route serves.
func TestOpenAPIReport(t *testing.T) {
	var logs bytes.Buffer
	door, err := Install(shopRouter(), shopConfig(&logs))
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	detector.WriteTable(&table, door.Report())
	want := `TOOL      ROUTE           VERDICT   SCHEMA      REASON
add_item  POST /add_item  direct    openapi
note      POST /note      direct    declared
order     POST /order     direct    typed
peek      POST /peek      direct    openapi
plain     POST /plain     direct    permissive
reset     POST /reset     excluded  -           x-mcp-exclude
upload    POST /upload    direct    permissive  openapi: the request body is image/png; only an application/json (or +json) body can carry a tool's arguments
-         POST /ghost     unserved  -           the OpenAPI document describes it (line 43), but no route serves it
`
	if table.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", table.String(), want)
	}
	for _, want := range []string{
		`level=WARN msg="mcpdoor: the OpenAPI document describes it (line 43), but no route serves it" route="POST /ghost"`,
		`level=WARN msg="mcpdoor: openapi: line 48: #/paths/~1items~1{id}/get/x-mcp-hidden: unknown extension, ignored; mcpdoor reads x-mcp-read-only, x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title and x-mcp-exclude"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no warning %s\nlog:\n%s", want, logs.String())
		}
	}
}

// TestOpenAPIExcludeNested: a route Install would refuse (a nested path)
// is never shape-checked when the document keeps it off MCP.
func TestOpenAPIExcludeNested(t *testing.T) {
	r := chi.NewRouter()
	r.Post("/admin/purge", ok)
	cfg := enabled(MCPConfig{})
	if _, err := Install(r, cfg); err == nil {
		t.Fatal("a nested route was not refused")
	}
	r = chi.NewRouter()
	r.Post("/admin/purge", ok)
	cfg.OpenAPI = []byte("openapi: 3.0.3\npaths:\n  /admin/purge:\n    post:\n      x-mcp-exclude: true\n")
	door, err := Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rows := door.Report(); len(rows) != 1 || rows[0] != (detector.Row{Tool: "admin/purge", Route: "POST /admin/purge", Verdict: "excluded", Reason: "x-mcp-exclude"}) {
		t.Errorf("report %+v", rows)
	}
}

// TestOpenAPIAnnotationsYAML: mcp.annotations set over the document's.
func TestOpenAPIAnnotationsYAML(t *testing.T) {
	cfg := shopConfig(nil)
	cfg.MCP.Annotations = map[string]Annotations{"add_item": {Idempotent: ptr(true), Title: "Add"}}
	door, err := Install(shopRouter(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range exposed(door) {
		if tl.Name == "add_item" {
			if got, _ := json.Marshal(tl.Annotations); string(got) != `{"idempotentHint":true,"readOnlyHint":false,"title":"Add"}` {
				t.Errorf("annotations %s", got)
			}
		}
	}
}

// TestOpenAPIErrors: a document Install cannot use fails it, naming the
// document and the place.
func TestOpenAPIErrors(t *testing.T) {
	cfg := enabled(MCPConfig{})
	cfg.OpenAPI = []byte("openapi: 3.1.0\npaths:\n  /add_item:\n    post:\n      requestBody: {$ref: '#/nope'}\n")
	_, err := Install(shopRouter(), cfg)
	const want = `mcpdoor: Config.OpenAPI: openapi: line 5: #/paths/~1add_item/post/requestBody: the $ref "#/nope" points to nothing`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	cfg.OpenAPI = []byte("swagger: '1.2'")
	_, err = Install(shopRouter(), cfg)
	if err == nil || err.Error() != `mcpdoor: Config.OpenAPI: openapi: line 1: #/swagger: Swagger version "1.2" is not supported; want 2.0 (or openapi 3.0.x or 3.1.x)` {
		t.Errorf("got %v", err)
	}
}

// TestOpenAPIToolsForWrap: the document's POST operations as tools, for a
// handler without a route table.
func TestOpenAPIToolsForWrap(t *testing.T) {
	doc, err := openapi.Load([]byte(shopDoc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range harvest.DocumentTools(doc) {
		input, _ := json.Marshal(tl.InputSchema)
		got = append(got, strings.Join([]string{tl.Name, tl.Route, string(tl.SchemaSource), tl.Description, string(input), tl.Note}, " | "))
		if tl.Detected != nil {
			t.Errorf("%s has a route", tl.Name)
		}
	}
	want := []string{
		`add_item | POST /add_item | openapi | Add an item to the cart | {"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":["integer","null"],"minimum":1}},"required":["sku"]} | `,
		`order | POST /order | openapi | Place the order | {"type":"object","properties":{"city":{"type":"integer"}}} | `,
		`note | POST /note | openapi | Leave a note` + "\n\n" + `The note is kept with the order. | {"type":"object","properties":{"text":{"type":"string"}}} | `,
		`peek | POST /peek | openapi | Look at the cart. | {"type":"object","additionalProperties":false} | `,
		`upload | POST /upload | permissive | Upload a receipt | {"type":"object"} | openapi: the request body is image/png; only an application/json (or +json) body can carry a tool's arguments`,
		`ghost | POST /ghost | openapi | A route the server does not have | {"type":"object","additionalProperties":false} | `,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}
