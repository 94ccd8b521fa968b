package openapi

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// swaggo is a Swagger 2.0 document in the shape swaggo writes: a
// basePath, definitions named after Go packages, parameters in path,
// query, header, body and formData, consumes and produces per operation.
func swaggo(t *testing.T) *Document {
	t.Helper()
	data, err := os.ReadFile("testdata/swaggo.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Load(data)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return doc
}

// TestLoadSwagger2: a Swagger 2.0 document's operations are read as an
// OpenAPI 3 document's: at the full path, with the body parameter's schema
// as the input ($refs to definitions resolved), path and query parameters
// from their own keywords, and a form body left without input, saying
// why.
func TestLoadSwagger2(t *testing.T) {
	doc := swaggo(t)
	var got []string
	for _, op := range doc.Operations {
		line := op.Method + " " + op.Path + " " + op.Summary + "\n  input: "
		if op.Input != nil {
			b, _ := json.Marshal(op.Input)
			line += string(b)
		} else {
			line += "none: " + op.NoInput
		}
		for _, p := range op.Params {
			s := p.NoSchema
			if p.Schema != nil {
				b, _ := json.Marshal(p.Schema)
				s = string(b)
			}
			line += "\n  " + p.In + " " + p.Name + ": " + s
		}
		got = append(got, line)
	}
	want := []string{
		"GET /api/v1/books List books\n  input: {\"type\":\"object\",\"additionalProperties\":false}" +
			"\n  query q: {\"type\":\"string\"}" +
			"\n  query limit: {\"type\":\"integer\",\"default\":20,\"minimum\":1,\"maximum\":100}" +
			"\n  query genre: {\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"fiction\",\"poetry\",\"history\"]}}",
		"POST /api/v1/books Add a book\n  input: " +
			`{"type":"object","properties":{"author":{"type":"object","properties":{"name":{"type":"string"}}},"tags":{"type":"array","items":{"type":"string"}},"title":{"type":"string","minLength":1,"maxLength":200}},"required":["title"]}`,
		"POST /api/v1/books/bulk Add books\n  input: none: the request body's schema is of type array; a tool's arguments are a JSON object",
		"GET /api/v1/books/{id} Get a book\n  input: {\"type\":\"object\",\"additionalProperties\":false}\n  path id: {\"type\":\"integer\"}",
		"DELETE /api/v1/books/{id} Remove a book\n  input: {\"type\":\"object\",\"additionalProperties\":false}\n  path id: {\"type\":\"integer\"}",
		"POST /api/v1/books/{id}/cover Upload a cover\n  input: none: the request body is a form (multipart/form-data, of formData parameters); only an application/json (or +json) body can carry a tool's arguments\n  path id: {\"type\":\"integer\"}",
		"POST /api/v1/account/password Set the password\n  input: none: the request body is a form (application/x-www-form-urlencoded, of formData parameters); only an application/json (or +json) body can carry a tool's arguments",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if doc.Operation("GET", "/api/v1/books/{id}").Params[0].Description != "the book's id" {
		t.Errorf("the path parameter's description is lost")
	}
}

// TestLoadSwagger2Responses: a Swagger 2.0 operation's success response
// schema is its output, under produces or JSON when none is given; its
// request body's media types are consumes, or a form's.
func TestLoadSwagger2Responses(t *testing.T) {
	doc := swaggo(t)
	var got []string
	for _, op := range doc.Operations {
		line := op.Method + " " + op.Path + "\n  consumes " + strings.Join(op.Consumes, ", ") + "; produces " + strings.Join(op.Produces, ", ") + "\n  output: "
		switch {
		case op.Output != nil:
			b, _ := json.Marshal(op.Output)
			line += string(b)
		case op.NoOutput != "":
			line += "none: " + op.NoOutput
		default:
			line += "none"
		}
		if op.Body != nil && op.Input == nil {
			b, _ := json.Marshal(op.Body)
			line += "\n  body: " + string(b)
		}
		got = append(got, line)
	}
	const book = `{"type":"object","properties":{"author":{"type":"object","properties":{"name":{"type":"string"}}},"id":{"type":"integer","readOnly":true,"examples":[7],"format":"int64"},"tags":{"type":"array","items":{"type":"string"}},"title":{"type":"string","examples":["The Waves"]}},"required":["title"]}`
	want := []string{
		"GET /api/v1/books\n  consumes ; produces application/json\n  output: {\"type\":\"array\",\"items\":" + book + "}",
		"POST /api/v1/books\n  consumes application/json; produces application/json\n  output: " + book,
		"POST /api/v1/books/bulk\n  consumes application/json; produces application/json\n  output: {\"type\":\"object\",\"properties\":{\"added\":{\"type\":\"integer\"},\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}}" +
			"\n  body: {\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"author\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200}},\"required\":[\"title\"]},\"description\":\"the books\"}",
		"GET /api/v1/books/{id}\n  consumes ; produces application/json\n  output: " + book,
		"DELETE /api/v1/books/{id}\n  consumes ; produces \n  output: none",
		"POST /api/v1/books/{id}/cover\n  consumes multipart/form-data; produces application/json\n  output: " + book,
		"POST /api/v1/account/password\n  consumes application/x-www-form-urlencoded; produces text/html\n  output: none",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}
