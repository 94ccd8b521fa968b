package main

import (
	"log/slog"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDoors: the bookstore's plain handlers, described by its OpenAPI
// document, answer alike over HTTP and over MCP, including the refusals of
// the document's schemas (422 before the route runs). The inventory is one
// store that every session shares, so the calls are the ones whose answer
// stays the same when the second door repeats them: searches, the report, a
// duplicate ISBN, stock the store cannot give, a book it does not have.
//
// The unknown ISBN matches the document's pattern (^97[89][0-9]{10}$): the
// handlers do not check it, so over HTTP an ISBN outside it gets 404, where
// the MCP door refuses it with 422, and Parity reports that.
func TestDoors(t *testing.T) {
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := autoexposetest.NewServer(t, door, door)
	autoexposetest.Verdicts(t, door, map[string]string{
		"add_book":         "direct",
		"find_books":       "direct",
		"inventory_report": "direct",
		"remove_book":      "direct",
		"update_stock":     "direct",
		"reset_inventory":  "excluded",
	})
	ts.Parity(t,
		autoexposetest.Call{Tool: "find_books", Arguments: `{"query":"programming","max_results":2}`},
		autoexposetest.Call{Tool: "find_books", Arguments: `{"query":"go","in_stock_only":true}`},
		autoexposetest.Call{Tool: "find_books", Arguments: `{}`},
		autoexposetest.Call{Tool: "inventory_report"},
		autoexposetest.Call{Tool: "add_book", Arguments: `{"isbn":"9780131103627","title":"The C Programming Language","author":{"name":"Brian Kernighan","born":1942},"price":52,"copies":1}`},
		autoexposetest.Call{Tool: "add_book", Arguments: `{"isbn":"1"}`},
		autoexposetest.Call{Tool: "update_stock", Arguments: `{"isbn":"9780134190440","delta":-1}`},
		autoexposetest.Call{Tool: "update_stock", Arguments: `{"isbn":"9780000000000","delta":1}`},
		autoexposetest.Call{Tool: "remove_book", Arguments: `{"isbn":"9780000000000"}`},
	)
}
