package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// truth is what one handler reads and writes, written down by hand from
// its code, not from what mcpdoor gen makes of it.
type truth struct {
	route string   // as the startup report names it
	shape string   // the shape of code it stands for (TestShapes's subtests)
	body  []string // the body members it reads: paths, "." into an object, "[]." into an array's items
	query []string // the query parameters it reads
	doc   string   // the start of its description: its doc comment, or its swaggo summary
	out   string   // its JSON success answer: "object", "array", or "" for none (no body, text)
}

// handlers is the app's ground truth, route by route.
var handlers = []truth{
	{route: "GET /healthz", shape: "plain", doc: "health says the app is up."},
	{route: "GET /api/me", shape: "plain", doc: "me answers the signed-in user.", out: "object"},

	{route: "GET /api/notes/", shape: "helper encoder", doc: "List answers the notes", out: "object"},
	{route: "POST /api/notes/", shape: "helper encoder", body: []string{"text", "pinned"}, doc: "Create keeps a new note.", out: "object"},
	{route: "GET /api/notes/{id}", shape: "helper encoder", doc: "Get answers one note.", out: "object"},
	{route: "POST /api/notes/{id}/pin", shape: "helper encoder", doc: "Pin pins a note", out: "object"},

	{route: "GET /api/posts/{post}/comments/", shape: "response library", query: []string{"sort"}, doc: "List answers a post's comments", out: "array"},
	{route: "POST /api/posts/{post}/comments/", shape: "response library", body: []string{"author", "text", "reply_to"}, doc: "Create adds a comment", out: "object"},
	{route: "POST /api/comments/{id}/like", shape: "response library", doc: "Like adds a like", out: "object"},
	{route: "GET /api/comments/counts", shape: "response library", query: []string{"post"}, doc: "Counts answers how many comments", out: "object"},

	{route: "GET /api/stock/", shape: "json/v2", doc: "List answers every stock level", out: "object"},
	{route: "POST /api/stock/reserve", shape: "json/v2", body: []string{"sku", "quantity", "order"}, doc: "Reserve holds stock", out: "object"},
	{route: "POST /api/stock/{sku}/restock", shape: "json/v2", body: []string{"quantity", "supplier"}, doc: "Restock adds to an item's stock.", out: "object"},

	{route: "GET /api/items/", shape: "wrapped handler", query: []string{"order"}, doc: "List answers the items", out: "object"},
	{route: "POST /api/items/", shape: "wrapped handler", body: []string{"title", "price", "tags"}, doc: "Create adds an item", out: "object"},
	{route: "GET /api/items/{id}", shape: "wrapped handler", doc: "Get answers one item.", out: "object"},
	{route: "DELETE /api/items/{id}", shape: "wrapped handler", doc: "Delete removes an item"},

	{route: "POST /api/orders/", shape: "validating middleware", body: []string{"customer", "lines", "lines[].sku", "lines[].quantity", "address", "address.street",
		"address.city", "address.country", "note"}, doc: "Create places an order.", out: "object"},
	{route: "GET /api/orders/{id}", shape: "plain", doc: "Get answers an order.", out: "object"},
	{route: "POST /api/orders/{id}/lines", shape: "validating middleware", body: []string{"lines", "lines[].sku", "lines[].quantity"}, doc: "AddLines adds lines", out: "object"},
	{route: "PATCH /api/orders/{id}", shape: "plain", body: []string{"note", "priority"}, doc: "Update changes an order's note", out: "object"},
	{route: "PUT /api/orders/{id}/address", shape: "validating middleware", body: []string{"street", "city", "country"}, doc: "SetAddress sets where an order goes.", out: "object"},

	{route: "GET /api/reports/sales", shape: "query helper", query: []string{"status", "from", "to", "limit", "offset", "desc"}, doc: "Sales answers the sales", out: "object"},
	{route: "GET /api/reports/summary", shape: "query helper", query: []string{"status", "from", "to", "limit", "offset", "desc", "currency"}, doc: "Summary answers the figures", out: "object"},
	{route: "GET /api/reports/top", shape: "query helper", query: []string{"n", "with_returns"}, doc: "Top answers the best sellers", out: "object"},

	{route: "GET /api/pets/", shape: "swaggo", query: []string{"species", "limit"}, doc: "List pets", out: "object"},
	{route: "POST /api/pets/", shape: "swaggo", body: []string{"name", "species", "age"}, doc: "Add a pet", out: "object"},
	{route: "GET /api/pets/{id}", shape: "swaggo", doc: "Show a pet", out: "object"},
	{route: "POST /api/pets/{id}/adopt", shape: "swaggo", query: []string{"adopter"}, doc: "Adopt a pet", out: "object"},
	{route: "POST /api/pets/{id}/confirm", shape: "plain", query: []string{"tkn"}, doc: "Confirm confirms an adoption", out: "object"},

	{route: "POST /api/import", shape: "opaque", body: []string{"source", "records"}, doc: "Import takes a batch", out: "object"},
}

const untunedYAML = `
name: untuned
expose_tools_over_mcp: true
mcp:
  rest:
    methods: [GET, POST, PUT, PATCH, DELETE]
`

// A measured handler is what tools/list advertises of one handler of
// the ground truth, and why not the rest.
type measured struct {
	truth
	have    map[string]bool // "body x", "query x", "doc", "output": advertised
	missing []string
	reason  string // the startup report's reason for the tool
}

// measure installs the app as its command does and lists its tools as a
// client does.
func measure(t *testing.T) []measured {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte(untunedYAML))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	door, err := autoexpose.Install(NewRouter(slog.New(slog.DiscardHandler)), cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	t.Cleanup(func() { door.Close() })
	srv := httptest.NewServer(door)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "measure", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]any{}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl)
		var m map[string]any
		json.Unmarshal(b, &m)
		tools[tl.Name] = m
	}
	byRoute, reasons := map[string]string{}, map[string]string{}
	for _, row := range door.Report() {
		if row.Tool != "" {
			byRoute[row.Route], reasons[row.Route] = row.Tool, row.Reason
		}
	}
	var out []measured
	for _, h := range handlers {
		m := measured{truth: h, have: map[string]bool{}, reason: reasons[h.route]}
		tl := tools[byRoute[h.route]]
		if tl == nil {
			t.Errorf("no tool serves %s", h.route)
			continue
		}
		desc, _ := tl["description"].(string)
		check := func(what string, ok bool) {
			m.have[what] = ok
			if !ok {
				m.missing = append(m.missing, what)
			}
		}
		for _, p := range h.body {
			check("body "+p, hasPath(tl["inputSchema"], p))
		}
		for _, q := range h.query {
			check("query "+q, hasPath(tl["inputSchema"], q))
		}
		if h.doc != "" {
			check("doc", strings.HasPrefix(desc, h.doc))
		}
		switch h.out {
		case "object":
			out, _ := tl["outputSchema"].(map[string]any)
			check("output", out["type"] == "object")
		case "array":
			check("output", strings.Contains(desc, "Answers a JSON array"))
		}
		out = append(out, m)
	}
	return out
}

// TestAdvertised counts, of the ground truth, the body members, query
// parameters, descriptions and JSON success answers that tools/list
// advertises, each kind on its own, and logs every miss with the reason
// the startup report gives for its tool. Each share must be at least 90%
// here, where the opaque shape is a handler gen cannot read by design;
// mcpdoor's TestMeasurement holds the fixtures together to 95%.
func TestAdvertised(t *testing.T) {
	type count struct{ have, of int }
	kinds := map[string]*count{"body": {}, "query": {}, "doc": {}, "output": {}}
	var table strings.Builder
	for _, m := range measure(t) {
		for what, ok := range m.have {
			kind, _, _ := strings.Cut(what, " ")
			c := kinds[kind]
			c.of++
			if ok {
				c.have++
			}
		}
		if len(m.missing) > 0 {
			reason := m.reason
			if reason == "" {
				reason = "(the report gives no reason)"
			}
			fmt.Fprintf(&table, "  %-36s missing %s\n  %-36s because: %s\n", m.route, strings.Join(m.missing, ", "), "", reason)
		}
	}
	pct := func(c *count) float64 { return 100 * float64(c.have) / float64(max(c.of, 1)) }
	t.Logf("%d handlers: advertised: body members %d/%d (%.0f%%), query parameters %d/%d (%.0f%%), descriptions %d/%d (%.0f%%), success outputs %d/%d (%.0f%%)\n%s",
		len(handlers), kinds["body"].have, kinds["body"].of, pct(kinds["body"]), kinds["query"].have, kinds["query"].of, pct(kinds["query"]),
		kinds["doc"].have, kinds["doc"].of, pct(kinds["doc"]), kinds["output"].have, kinds["output"].of, pct(kinds["output"]), table.String())
	for _, kind := range []string{"body", "query", "doc", "output"} {
		if pct(kinds[kind]) < 90 {
			t.Errorf("%s: advertised %d of %d (%.1f%%), want at least 90%%", kind, kinds[kind].have, kinds[kind].of, pct(kinds[kind]))
		}
	}
}

// TestShapes: for each shape of code gen was not tuned for, every body
// member, query parameter, description and output of its handlers is
// advertised; a miss that gen cannot avoid (the opaque shape) is one the
// startup report gives a reason for, naming the call and its place.
func TestShapes(t *testing.T) {
	byShape := map[string][]measured{}
	var shapes []string
	for _, m := range measure(t) {
		if _, ok := byShape[m.shape]; !ok {
			shapes = append(shapes, m.shape)
		}
		byShape[m.shape] = append(byShape[m.shape], m)
	}
	for _, shape := range shapes {
		t.Run(strings.ReplaceAll(shape, " ", "_"), func(t *testing.T) {
			for _, m := range byShape[shape] {
				switch {
				case len(m.missing) == 0:
				case shape == "opaque":
					if !strings.Contains(m.reason, "cannot follow") || !strings.Contains(m.reason, ".go:") {
						t.Errorf("%s misses %s, and the report's reason %q names no call gen cannot follow, with its place", m.route, strings.Join(m.missing, ", "), m.reason)
					}
				default:
					t.Errorf("%s: tools/list misses %s (the report says: %q)", m.route, strings.Join(m.missing, ", "), m.reason)
				}
			}
		})
	}
}

// hasPath reports whether an object schema has the member at path
// ("address.city", "lines[].sku").
func hasPath(schema any, path string) bool {
	s, _ := schema.(map[string]any)
	for _, part := range strings.Split(path, ".") {
		items := strings.HasSuffix(part, "[]")
		props, _ := s["properties"].(map[string]any)
		s, _ = props[strings.TrimSuffix(part, "[]")].(map[string]any)
		if s == nil {
			return false
		}
		if items {
			s, _ = s["items"].(map[string]any)
		}
	}
	return s != nil
}
