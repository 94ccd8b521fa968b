package autoexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// These examples are the code of the README and docs/, word for word (a
// test of internal/doccheck checks it), so that their snippets compile.

// The quick start: a chi router's routes, served over MCP too.
func Example() {
	cfg, err := autoexpose.LoadConfig("server.yaml") // name: weather, expose_tools_over_mcp: true
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather)) // or any http.Handler
	door, err := autoexpose.Install(r, cfg)                                   // after the routes, before serving
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", door)) // the Door, in place of r: it serves r
}

// SendEmail is the input of a catch-all tool.
type SendEmail struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// The tools a catch-all dispatcher (POST /{tool}) serves are declared in
// Config.CatchAll.
func ExampleConfig_catchAll() {
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Post("/{tool}", func(w http.ResponseWriter, r *http.Request) { /* dispatches by chi.URLParam(r, "tool") */ })
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"send_email": {Description: "Send an email.", Input: autoexpose.SchemaFor[SendEmail]()},
	}
	if _, err := autoexpose.Install(r, cfg); err != nil {
		log.Fatal(err)
	}
}

// A long handler tells an MCP client how far it has got, and logs to it;
// both do nothing for an HTTP caller.
func ExampleLog() {
	r := chi.NewRouter()
	r.Post("/forecast", func(w http.ResponseWriter, r *http.Request) {
		city, days := "Paris", 5
		for day := 1; day <= days; day++ {
			autoexpose.Progress(r.Context(), float64(day), float64(days), fmt.Sprintf("day %d of %d", day, days)) // notifications/progress, if the client sent a progress token
			autoexpose.Log(r.Context(), "info", map[string]any{"city": city, "day": day})                         // notifications/message, at the client's log level
		}
		w.Write([]byte(`{}`))
	})
	_ = context.Background
}

// A handler answers several content blocks, and optionally
// structuredContent, with the content media type.
func ExampleContentMediaType_blocks() {
	var chart []byte // a PNG
	var csv string
	http.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", autoexpose.ContentMediaType)
		json.NewEncoder(w).Encode(map[string]any{
			"content": []mcp.Content{
				&mcp.TextContent{Text: "Sales are up 12%."},
				&mcp.ImageContent{MIMEType: "image/png", Data: chart},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "report://q3", MIMEType: "text/csv", Text: csv}},
				&mcp.ResourceLink{URI: "https://example.com/sales.csv", Name: "sales.csv"},
			},
			"structuredContent": map[string]int{"up_percent": 12}, // optional, an object
		})
	})
}

// A destructive tool asks its MCP client's user to confirm, and tells the
// doors apart.
func ExampleElicit_confirm() {
	var schema *jsonschema.Schema
	http.HandleFunc("POST /delete_all", func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Elicit(r.Context(), "Delete every file?", schema) // schema may be nil: accept or decline
		switch {
		case errors.Is(err, autoexpose.ErrNoClient): // the HTTP door: take "confirm": true from the body instead
		case errors.Is(err, errors.ErrUnsupported): // an MCP client that cannot be asked: refuse
		case err != nil: // return it
		case res.Action == "accept": // res.Content: the form, checked against schema, defaults filled in
		}
	})
}
