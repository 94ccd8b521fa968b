package server

import (
	"context"
	"encoding/json"
	"fmt"
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
	body  []string // the body members it reads: paths, "." into an object, "[]." into an array's items
	query []string // the query parameters it reads
	doc   string   // the start of its doc comment; "" for none
	out   string   // its JSON success answer: "object", "array", or "" for none (no body, text)
}

// handlers is the shop's ground truth, route by route.
var handlers = []truth{
	{route: "GET /healthz", doc: "Health says the shop is up."},

	{route: "GET /api/v1/users/", query: []string{"limit", "offset", "q", "role"}, doc: "List answers the accounts", out: "object"},
	{route: "POST /api/v1/users/", body: []string{"name", "email", "password", "role"}, doc: "Create opens an account", out: "object"},
	{route: "GET /api/v1/users/me", doc: "Me answers the signed-in account.", out: "object"},
	{route: "GET /api/v1/users/me/sessions", query: []string{"active"}, doc: "Sessions answers the account's signed-in devices", out: "array"},
	{route: "POST /api/v1/users/me/password", body: []string{"current", "new"}, doc: "ChangePassword sets a new password", out: "object"},
	{route: "GET /api/v1/users/{userID}", doc: "Get answers one account.", out: "object"},
	{route: "PATCH /api/v1/users/{userID}", body: []string{"name", "email", "bio"}, doc: "Update changes an account's name", out: "object"},
	{route: "DELETE /api/v1/users/{userID}", doc: "Delete closes an account."},

	{route: "GET /api/v1/articles/", query: []string{"tag", "published", "limit"}, doc: "List answers the articles", out: "array"},
	{route: "POST /api/v1/articles/", body: []string{"id", "slug", "title", "body", "tags", "published", "author_id"}, doc: "Create adds an article.", out: "object"},
	{route: "GET /api/v1/articles/{articleID}/", doc: "Get answers the article.", out: "object"},
	{route: "PUT /api/v1/articles/{articleID}/", body: []string{"id", "slug", "title", "body", "tags", "published", "author_id"}, doc: "Update changes the article.", out: "object"},
	{route: "DELETE /api/v1/articles/{articleID}/", doc: "Delete removes the article."},
	{route: "POST /api/v1/articles/{articleID}/publish", doc: "Publish makes the article public.", out: "object"},
	{route: "GET /api/v1/articles/{articleID}/comments", query: []string{"sort"}, doc: "List returns the handler that lists", out: "array"},
	{route: "POST /api/v1/articles/{articleID}/comments", body: []string{"author", "text", "parent_id"}, doc: "Create returns the handler that adds a comment", out: "object"},
	{route: "GET /api/v1/articles/by-slug/{slug}", doc: "Get answers the article.", out: "object"},
	{route: "DELETE /api/v1/comments/{commentID}", doc: "Delete returns the handler that removes a comment."},
	{route: "POST /api/v1/comments/{commentID}/like", doc: "Like returns the handler that likes a comment", out: "object"},

	{route: "GET /api/v1/tags/", query: []string{"prefix"}, doc: "ListTags answers every tag", out: "array"},
	{route: "POST /api/v1/tags/", body: []string{"name", "color", "uses"}, doc: "CreateTag adds a tag", out: "object"},
	{route: "POST /api/v1/tags/merge", body: []string{"from", "into"}, doc: "MergeTags folds the tag", out: "object"},
	{route: "PUT /api/v1/tags/{name}", body: []string{"name", "color"}, doc: "RenameTag renames a tag", out: "object"},
	{route: "DELETE /api/v1/tags/{name}", doc: "DeleteTag removes a tag."},

	{route: "GET /api/v1/orders/", query: []string{"status", "since", "limit"}, doc: "List answers the orders", out: "array"},
	{route: "POST /api/v1/orders/", body: []string{"lines", "lines[].sku", "lines[].quantity", "shipping", "shipping.name", "shipping.street",
		"shipping.city", "shipping.zip", "shipping.country", "coupon", "note"}, doc: "Place places an order", out: "object"},
	{route: "GET /api/v1/orders/{orderID}", doc: "Get answers one order.", out: "object"},
	{route: "POST /api/v1/orders/{orderID}/cancel", body: []string{"reason"}, doc: "Cancel cancels an order", out: "object"},
	{route: "POST /api/v1/orders/{orderID}/refund", body: []string{"amount", "reason", "notify"}, doc: "RefundOrder refunds an amount", out: "object"},
	{route: "POST /api/v1/orders/{orderID}/pay", body: []string{"method", "token"}, doc: "Pay pays an order", out: "object"},
	{route: "GET /api/v1/orders/{orderID}/invoice", doc: "Invoice answers an order's invoice"},

	{route: "GET /api/v1/search", query: []string{"q", "type", "page", "per_page"}, doc: "Search finds products and articles", out: "object"},
	{route: "POST /api/v1/search/advanced", body: []string{"query", "filters", "filters.brands", "filters.min_price", "filters.max_price", "filters.in_stock", "sort"},
		doc: "Advanced searches with filters", out: "object"},
	{route: "GET /api/v1/search/suggest", query: []string{"q"}, doc: "Suggest answers completions of q.", out: "array"},
	{route: "GET /api/v1/search/facets", query: []string{"color", "size", "brand"}, doc: "Facets answers the counts", out: "object"},

	{route: "GET /api/v1/cart/", doc: "Get answers the cart.", out: "object"},
	{route: "POST /api/v1/cart/items", body: []string{"sku", "quantity"}, doc: "Add puts a product in the cart.", out: "object"},
	{route: "DELETE /api/v1/cart/items/{sku}", doc: "Remove takes a product out of the cart.", out: "object"},
	{route: "POST /api/v1/cart/checkout", body: []string{"payment_method", "address_id", "gift"}, doc: "Checkout pays for the cart", out: "object"},

	{route: "GET /api/v1/notifications/", query: []string{"unread", "topic"}, doc: "List answers the notifications", out: "array"},
	{route: "PUT /api/v1/notifications/{id}/read", doc: "MarkRead marks a notification read.", out: "object"},
	{route: "POST /api/v1/notifications/read-all", doc: "ReadAll marks every notification read", out: "object"},
	{route: "GET /api/v1/notifications/settings", doc: "GetSettings answers how the user is notified.", out: "object"},
	{route: "PUT /api/v1/notifications/settings", body: []string{"email", "push", "digest"}, doc: "PutSettings sets how the user is notified.", out: "object"},

	{route: "GET /api/v1/admin/stats", doc: "Stats answers the shop's figures.", out: "object"},
	{route: "GET /api/v1/admin/audit", query: []string{"actor", "action", "from", "to"}, doc: "Audit answers the audit log", out: "array"},
	{route: "POST /api/v1/admin/users/{userID}/ban", body: []string{"reason", "until"}, doc: "BanUser bans an account", out: "object"},
	{route: "GET /api/v1/admin/flags", doc: "Flags answers the feature flags.", out: "object"},
	{route: "PUT /api/v1/admin/flags", doc: "SetFlags sets feature flags", out: "object"}, // its body's members are any flag's name
	{route: "POST /api/v1/admin/reindex", query: []string{"full"}, doc: "Reindex rebuilds the search index", out: "object"},
	{route: "GET /api/v1/admin/export/users", doc: "ExportUsers answers the accounts as CSV."},
}

const shopYAML = `
name: shop
expose_tools_over_mcp: true
mcp:
  rest:
    methods: [GET, POST, PUT, PATCH, DELETE]
`

// TestAdvertised counts, handler by handler, the body members, query
// parameters, doc comments and JSON success answers of the ground truth
// that tools/list advertises to a client: a member or parameter as a
// property of the input schema, a doc comment as the description, an
// object answer as the output schema, an array answer in the description
// (a tool's structured output is an object).
func TestAdvertised(t *testing.T) {
	cfg, err := autoexpose.ParseConfig([]byte(shopYAML))
	if err != nil {
		t.Fatal(err)
	}
	door, err := autoexpose.Install(NewRouter(), cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	defer door.Close()
	srv := httptest.NewServer(door)
	defer srv.Close()
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

	type count struct{ have, of int }
	var body, query, docs, outs count
	var table strings.Builder
	for _, h := range handlers {
		tl := tools[byRoute[h.route]]
		if tl == nil {
			t.Errorf("no tool serves %s", h.route)
			continue
		}
		desc, _ := tl["description"].(string)
		var missing []string
		for _, p := range h.body {
			body.of++
			// A member named like a path parameter is the parameter's.
			if top, _, _ := strings.Cut(strings.TrimSuffix(p, "[]"), "."); !strings.Contains(h.route, "{"+top+"}") && hasPath(tl["inputSchema"], p) {
				body.have++
			} else {
				missing = append(missing, "body "+p)
			}
		}
		for _, q := range h.query {
			query.of++
			if hasPath(tl["inputSchema"], q) {
				query.have++
			} else {
				missing = append(missing, "query "+q)
			}
		}
		if h.doc != "" {
			docs.of++
			if strings.HasPrefix(desc, h.doc) {
				docs.have++
			} else {
				missing = append(missing, "doc")
			}
		}
		switch h.out {
		case "object":
			outs.of++
			if out, ok := tl["outputSchema"].(map[string]any); ok && out["type"] == "object" {
				outs.have++
			} else {
				missing = append(missing, "output")
			}
		case "array":
			outs.of++
			if strings.Contains(desc, "Answers a JSON array") {
				outs.have++
			} else {
				missing = append(missing, "output (array)")
			}
		}
		if len(missing) > 0 {
			reason := reasons[h.route]
			if reason == "" {
				reason = "(the report gives no reason)"
			}
			fmt.Fprintf(&table, "  %-45s missing %s\n  %-45s because: %s\n", h.route, strings.Join(missing, ", "), "", reason)
		}
	}
	have, of := body.have+query.have+docs.have+outs.have, body.of+query.of+docs.of+outs.of
	pct := func(c count) float64 { return 100 * float64(c.have) / float64(max(c.of, 1)) }
	t.Logf("%d handlers: advertised %d of %d (%.1f%%): body members %d/%d, query parameters %d/%d, descriptions %d/%d, success outputs %d/%d\n%s",
		len(handlers), have, of, pct(count{have, of}), body.have, body.of, query.have, query.of, docs.have, docs.of, outs.have, outs.of, table.String())
	if pct(count{have, of}) < 90 {
		t.Errorf("advertised %d of %d (%.1f%%), want at least 90%%", have, of, pct(count{have, of}))
	}
}

// hasPath reports whether an object schema has the member at path
// ("shipping.city", "lines[].sku").
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
