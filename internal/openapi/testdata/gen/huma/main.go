// Command huma writes the OpenAPI documents huma generates for a small
// bookstore API on chi: out.yaml (OpenAPI 3.1, testdata/huma-3.1.yaml) and
// out-3.0.yaml (huma's 3.0.3 downgrade, testdata/huma-3.0.yaml). See
// testdata/README.md.
package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
)

type Address struct {
	Street string `json:"street" doc:"Street and number" minLength:"1"`
	City   string `json:"city" doc:"City"`
	Zip    string `json:"zip" pattern:"^[0-9]{5}$" doc:"Five-digit postal code"`
}

type Line struct {
	ISBN     string `json:"isbn" doc:"The book's ISBN-13" minLength:"13" maxLength:"13"`
	Quantity int    `json:"quantity" minimum:"1" maximum:"99" doc:"How many copies"`
}

type OrderBody struct {
	Customer string  `json:"customer" doc:"Customer name"`
	Lines    []Line  `json:"lines" minItems:"1" doc:"What to ship"`
	ShipTo   Address `json:"ship_to"`
	Gift     *string `json:"gift_note,omitempty" required:"false" nullable:"true" doc:"A note to print on the packing slip"`
	Priority string  `json:"priority,omitempty" enum:"standard,express" default:"standard"`
}

type OrderInput struct {
	Body OrderBody
}

type OrderOutput struct {
	Body struct {
		OrderID string `json:"order_id"`
	}
}

type SearchInput struct {
	Body struct {
		Query string `json:"query" doc:"Words to look for in titles and authors"`
		Limit int    `json:"limit,omitempty" minimum:"1" maximum:"50" default:"10"`
	}
}

type SearchOutput struct {
	Body struct {
		Results []string `json:"results"`
	}
}

type PingOutput struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

func main() {
	r := chi.NewMux()
	api := humachi.New(r, huma.DefaultConfig("Bookstore", "1.0.0"))
	huma.Register(api, huma.Operation{
		OperationID: "place-order",
		Method:      "POST",
		Path:        "/place_order",
		Summary:     "Place an order",
		Description: "Places an order for one or more books and returns its id.",
		Extensions:  map[string]any{"x-mcp-destructive": false, "x-mcp-idempotent": false},
	}, func(ctx context.Context, in *OrderInput) (*OrderOutput, error) { return &OrderOutput{}, nil })
	huma.Register(api, huma.Operation{
		OperationID: "search-books",
		Method:      "POST",
		Path:        "/search_books",
		Summary:     "Search the catalogue",
		Extensions:  map[string]any{"x-mcp-read-only": true, "x-mcp-title": "Search books"},
	}, func(ctx context.Context, in *SearchInput) (*SearchOutput, error) { return &SearchOutput{}, nil })
	huma.Register(api, huma.Operation{
		OperationID: "ping",
		Method:      "POST",
		Path:        "/ping",
		Summary:     "Check the service is up",
	}, func(ctx context.Context, in *struct{}) (*PingOutput, error) { return &PingOutput{}, nil })
	for _, p := range []string{"/openapi.yaml", "/openapi-3.0.yaml"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", p, nil))
		fmt.Fprintln(os.Stderr, p, w.Code)
		os.WriteFile("out"+p[len("/openapi"):], w.Body.Bytes(), 0o644)
	}
}
