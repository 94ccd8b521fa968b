package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// startBookstore runs examples/openapi, with its own server.yaml.
func startBookstore(t *testing.T) *example {
	t.Helper()
	return startExample(t, "openapi", "")
}

// bookstoreTools is what tools/list advertises: every schema, description
// and annotation comes from examples/openapi/openapi.yaml.
const bookstoreTools = `[
  {
    "name": "add_book",
    "description": "Add a book to the inventory\n\nA book already in the inventory is refused (409); change its stock with update_stock.",
    "annotations": {"destructiveHint": false, "idempotentHint": false, "readOnlyHint": false},
    "inputSchema": {
      "type": "object",
      "additionalProperties": false,
      "required": ["isbn", "title", "author", "price", "copies"],
      "properties": {
        "isbn": {"type": "string", "description": "the book's ISBN-13, digits only", "examples": ["9780262510875"], "pattern": "^97[89][0-9]{10}$"},
        "title": {"type": "string", "minLength": 1},
        "author": {
          "type": "object",
          "additionalProperties": false,
          "required": ["name"],
          "properties": {
            "name": {"type": "string", "minLength": 1},
            "born": {"type": ["integer", "null"], "description": "the year the author was born, or null when unknown"}
          }
        },
        "price": {"type": "number", "description": "the price in euros", "exclusiveMinimum": 0},
        "copies": {"type": "integer", "description": "copies in stock", "minimum": 0}
      }
    }
  },
  {
    "name": "find_books",
    "description": "Find books by title or author",
    "annotations": {"idempotentHint": false, "readOnlyHint": true},
    "inputSchema": {
      "type": "object",
      "additionalProperties": false,
      "required": ["query"],
      "properties": {
        "query": {"type": "string", "description": "words to look for in titles and authors' names, case-insensitively", "minLength": 1},
        "in_stock_only": {"type": "boolean", "default": false},
        "max_results": {"type": "integer", "default": 5, "minimum": 1, "maximum": 20}
      }
    }
  },
  {
    "name": "inventory_report",
    "description": "Count the titles and copies in stock, and their value",
    "annotations": {"idempotentHint": false, "readOnlyHint": true, "title": "Inventory report"},
    "inputSchema": {"type": "object", "additionalProperties": false}
  },
  {
    "name": "remove_book",
    "description": "Remove a book from the inventory",
    "annotations": {"destructiveHint": true, "idempotentHint": true, "readOnlyHint": false},
    "inputSchema": {
      "type": "object",
      "additionalProperties": false,
      "required": ["isbn"],
      "properties": {
        "isbn": {"type": "string", "description": "the book's ISBN-13, digits only", "examples": ["9780262510875"], "pattern": "^97[89][0-9]{10}$"}
      }
    }
  },
  {
    "name": "update_stock",
    "description": "Change the number of copies in stock",
    "annotations": {"destructiveHint": false, "idempotentHint": false, "readOnlyHint": false},
    "inputSchema": {
      "type": "object",
      "additionalProperties": false,
      "required": ["isbn", "delta"],
      "properties": {
        "isbn": {"type": "string", "description": "the book's ISBN-13, digits only", "examples": ["9780262510875"], "pattern": "^97[89][0-9]{10}$"},
        "delta": {"type": "integer", "description": "copies received (positive) or sold (negative)"},
        "note": {"type": ["string", "null"], "description": "why the stock changed, or null", "maxLength": 100}
      }
    }
  }
]`

// TestOpenAPIExampleTools: an MCP client sees the tools as the OpenAPI
// document describes them, and the startup report says so.
func TestOpenAPIExampleTools(t *testing.T) {
	s := startBookstore(t)
	cs := s.connect(mcpOptions{})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, res.Tools, json.RawMessage(bookstoreTools))

	// The startup report, as the example logs it, row by row.
	for _, want := range []string{
		`tool=add_book route="POST /add_book" verdict=direct reason="" schema=openapi`,
		`tool=find_books route="POST /find_books" verdict=direct reason="" schema=openapi`,
		`tool=inventory_report route="POST /inventory_report" verdict=direct reason="" schema=openapi`,
		`tool=remove_book route="POST /remove_book" verdict=direct reason="" schema=openapi`,
		`tool=reset_inventory route="POST /reset_inventory" verdict=excluded reason=x-mcp-exclude schema=""`,
		`tool=update_stock route="POST /update_stock" verdict=direct reason="" schema=openapi`,
	} {
		if !strings.Contains(s.Log(), `msg="mcpdoor: route" `+want+"\n") {
			t.Errorf("the startup log has no row\n  %s\nlog:\n%s", want, s.Log())
		}
	}
}

// TestOpenAPIExampleParity: the same calls, in the same order, through the
// HTTP door of one bookstore and the MCP door of another, give the same
// answers (the package documentation, "Results").
func TestOpenAPIExampleParity(t *testing.T) {
	overHTTP, overMCP := startBookstore(t), startBookstore(t)
	cs := overMCP.connect(mcpOptions{})
	const newBook = `{"isbn":"9780201633610","title":"Design Patterns","author":{"name":"Erich Gamma","born":null},"price":49.95,"copies":2}`
	steps := []struct {
		tool, args string
		status     int
		code       string
	}{
		{"inventory_report", `{}`, 200, ""},
		{"find_books", `{"query":"programming"}`, 200, ""},
		{"find_books", `{"query":"Programming language","in_stock_only":true,"max_results":1}`, 200, ""},
		{"add_book", newBook, 201, ""},
		{"add_book", newBook, 409, "conflict"},
		{"update_stock", `{"isbn":"9780134190440","delta":4,"note":"restocked"}`, 200, ""},
		{"update_stock", `{"isbn":"9780134190440","delta":-10,"note":null}`, 409, "conflict"},
		{"update_stock", `{"isbn":"9790000000001","delta":1}`, 404, "not_found"},
		{"remove_book", `{"isbn":"9780131103627"}`, 200, ""},
		{"remove_book", `{"isbn":"9780131103627"}`, 200, ""},
		{"find_books", `{"query":"gamma"}`, 200, ""},
		{"inventory_report", `{}`, 200, ""},
	}
	for i, st := range steps {
		hr := overHTTP.post("/"+st.tool, st.args)
		if hr.Status != st.status {
			t.Fatalf("step %d, %s %s: HTTP door answered %d %s, want %d", i, st.tool, st.args, hr.Status, hr.Body, st.status)
		}
		res := call(t, cs, st.tool, rawArgs(st.args))
		sameJSON(t, res, expectedResult(t, st.tool, hr, st.code, "not_applied", false))
	}
	if r := overMCP.post("/inventory_report", `{}`); compactJSON(t, r.Body) != `{"copies":9,"titles":3,"value":396}` {
		t.Errorf("after the MCP calls, the HTTP door sees %s", r.Body)
	}
}

// TestOpenAPIExampleArguments: arguments that break the document's schema
// are refused before the handler runs, with the 422 naming the field.
func TestOpenAPIExampleArguments(t *testing.T) {
	s := startBookstore(t)
	cs := s.connect(mcpOptions{})
	before := s.post("/inventory_report", `{}`)
	// refused is the answer to arguments the schema refuses.
	refused := func(tool, fields, detail string) *mcp.CallToolResult {
		quoted, _ := json.Marshal(detail)
		body := `{"error":"invalid arguments","fields":` + fields + `,"detail":` + string(quoted) + `}`
		return refusedArguments(t, tool, httpResponse{Status: 422, Body: []byte(body)}, false)
	}
	cases := []struct {
		name, tool, args string
		want             *mcp.CallToolResult
	}{
		{"pattern of a $ref'd schema", "add_book", `{"isbn":"123","title":"T","author":{"name":"A"},"price":1,"copies":1}`,
			refused("add_book", `["isbn"]`, `isbn: pattern: "123" does not match regular expression "^97[89][0-9]{10}$"`)},
		{"required in a nested $ref", "add_book", `{"isbn":"9780000000002","title":"T","author":{},"price":1,"copies":1}`,
			refused("add_book", `["author.name"]`, "missing required field author.name")},
		{"3.0 exclusiveMinimum", "add_book", `{"isbn":"9780000000002","title":"T","author":{"name":"A"},"price":0,"copies":1}`,
			refused("add_book", `["price"]`, "price: 0 is not greater than 0")},
		{"3.0 nullable", "add_book", `{"isbn":"9780000000002","title":"T","author":{"name":"A","born":"1900"},"price":1,"copies":1}`,
			refused("add_book", `["author.born"]`, "author.born: want integer or null, got string")},
		{"additionalProperties", "add_book", `{"isbn":"9780000000002","title":"T","author":{"name":"A"},"price":1,"copies":1,"pages":300}`,
			refused("add_book", `["pages"]`, "unknown field pages")},
		{"maximum", "find_books", `{"query":"go","max_results":50}`,
			refused("find_books", `["max_results"]`, "max_results: 50 is greater than the maximum, 20")},
		{"missing", "find_books", `{}`,
			refused("find_books", `["query"]`, "missing required field query")},
		{"integer", "update_stock", `{"isbn":"9780262510875","delta":1.5}`,
			refused("update_stock", `["delta"]`, "delta: want integer, got number")},
		{"no body takes no arguments", "inventory_report", `{"verbose":true}`,
			refused("inventory_report", `["verbose"]`, "unknown field verbose")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameJSON(t, call(t, cs, c.tool, rawArgs(c.args)), c.want)
		})
	}
	if after := s.post("/inventory_report", `{}`); !bytes.Equal(after.Body, before.Body) {
		t.Errorf("refused calls changed the inventory: %s, then %s", before.Body, after.Body)
	}
}

// TestOpenAPIExampleHTTP: the server serves its document, and the route the
// document keeps off MCP still works over HTTP.
func TestOpenAPIExampleHTTP(t *testing.T) {
	s := startBookstore(t)
	resp, err := s.client.Get(s.url + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	document, err := os.ReadFile(filepath.Join(nodeclient.RepoRoot(t), "examples", "openapi", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/yaml" || !bytes.Equal(doc, document) {
		t.Errorf("GET /openapi.yaml: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(doc))
	}

	cs := s.connect(mcpOptions{})
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "reset_inventory"})
	if want := `unknown tool "reset_inventory"; available tools: add_book, find_books, inventory_report, remove_book, update_stock`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("reset_inventory over MCP: %v, want %q", err, want)
	}
	call(t, cs, "remove_book", map[string]any{"isbn": "9780262510875"})
	if r := s.post("/reset_inventory", ``); r.Status != http.StatusNoContent {
		t.Errorf("reset over HTTP: %d %s", r.Status, r.Body)
	}
	if r := s.post("/inventory_report", `{}`); compactJSON(t, r.Body) != `{"copies":5,"titles":3,"value":240.5}` {
		t.Errorf("after the reset: %s", r.Body)
	}
}
