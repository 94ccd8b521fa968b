package openapi

import (
	"strings"
	"testing"
)

// responsesDoc has a success response of each shape.
const responsesDoc = `openapi: 3.0.3
info: {title: books, version: "1"}
paths:
  /books:
    get:
      responses:
        "200":
          description: the books
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Book'}}
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Book'}
      responses:
        "201":
          description: the book added
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Book'}
        "400":
          description: a problem
          content:
            application/problem+json:
              schema: {$ref: '#/components/schemas/Problem'}
  /books/{id}:
    get:
      responses:
        200:
          $ref: '#/components/responses/OneBook'
        default:
          $ref: '#/components/responses/Problem'
    delete:
      responses:
        "204": {description: gone}
  /books/{id}/page:
    get:
      responses:
        "200":
          description: the book's page
          content:
            text/html:
              schema: {type: string}
  /stats:
    get:
      responses:
        "200":
          description: both
          content:
            application/vnd.stats+json:
              schema: {type: object, properties: {vendor: {type: boolean}}}
            application/json:
              schema: {type: object, properties: {count: {type: integer}}}
  /jobs:
    post:
      responses:
        "202":
          description: queued
          content:
            application/json:
              schema: {type: object, properties: {job: {type: string}}}
components:
  responses:
    OneBook:
      description: a book
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Book'}
    Problem:
      description: a problem
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Problem'}
  schemas:
    Book:
      type: object
      required: [id, title]
      properties:
        id: {type: integer, readOnly: true}
        title: {type: string}
        secret: {type: string, writeOnly: true}
    Problem:
      type: object
      properties:
        detail: {type: string}
`

// TestLoadOutput: an operation's output is its 200 response's JSON
// schema, else its 201's, $refs resolved, read-only properties kept and
// write-only ones left out; its media types are what it produces.
func TestLoadOutput(t *testing.T) {
	doc := load(t, responsesDoc)
	const book = `{"type":"object","properties":{"id":{"type":"integer","readOnly":true},"title":{"type":"string"}},"required":["id","title"]}`
	for _, tc := range []struct{ method, path, output, produces string }{
		{"GET", "/books", `{"type":"array","items":` + book + `}`, "application/json"},
		{"POST", "/books", book, "application/json"},
		{"GET", "/books/{id}", book, "application/json"},
		{"DELETE", "/books/{id}", "", ""},
		{"GET", "/books/{id}/page", "", "text/html"},
		{"GET", "/stats", `{"type":"object","properties":{"count":{"type":"integer"}}}`, "application/vnd.stats+json, application/json"},
		{"POST", "/jobs", "", "application/json"},
	} {
		op := doc.Operation(tc.method, tc.path)
		var output string
		if op.Output != nil {
			output = schemaJSON(t, op.Output)
		}
		if output != tc.output || strings.Join(op.Produces, ", ") != tc.produces || op.NoOutput != "" {
			t.Errorf("%s %s: output %s, produces %q, %q\nwant %s, %q", tc.method, tc.path, output, op.Produces, op.NoOutput, tc.output, tc.produces)
		}
	}
	// The request body's schema is the same component, as an input.
	if got, want := schemaJSON(t, doc.Operation("POST", "/books").Input), `{"type":"object","properties":{"title":{"type":"string"},"secret":{"type":"string","writeOnly":true}},"required":["title"]}`; got != want {
		t.Errorf("POST /books input %s, want %s", got, want)
	}
}
