package tests

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// The rest example (examples/rest): a REST-shaped chi notes API, every
// route a tool, through both doors.

const (
	userToken  = "Bearer demo-token"
	adminToken = "Bearer admin-token"
)

// restServer runs the rest example with its own server.yaml, and the
// fixtures' session secret. (Its own tests try hostile path values, with
// and without its declarations, through the test kit.)
func restServer(t *testing.T) *server {
	t.Helper()
	yaml, err := os.ReadFile(filepath.Join(nodeclient.RepoRoot(t), "examples", "rest", "server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return startExample(t, "rest", exampleConfig(strings.TrimRight(string(yaml), "\n"))).server
}

// restExpected is the MCP result the contract derives from a REST route's
// HTTP response: as expectedResult for a tool route, with the route's
// method and pattern in an error's text, an error's effect not_applied for
// a read-only tool, and a 2xx response without a body, or with a Location,
// saying so.
func restExpected(t *testing.T, route string, readOnly bool, r httpResponse) *mcp.CallToolResult {
	t.Helper()
	loc := r.Header.Get("Location")
	switch {
	case r.Status < 200 || r.Status > 299:
		text := strings.TrimRight(string(r.Body), " \r\n\t")
		if text == "" {
			text = http.StatusText(r.Status)
		}
		effect := "not_applied"
		if r.Status >= 500 && !readOnly {
			effect = "unknown"
		}
		return errorExpected(fmt.Sprintf("HTTP %d from %s: %s", r.Status, route, text), false,
			envelope{Code: statusCode(r.Status), Message: messageOf(text), Status: r.Status, Effect: effect})
	case len(r.Body) == 0:
		status := map[string]any{"status": r.Status}
		text := fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
		if loc != "" {
			status["location"] = loc
			text += "; Location: " + loc
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: status}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(r.Body)}}}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		text := compactJSON(t, r.Body)
		res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
		if strings.HasPrefix(text, "{") {
			res.StructuredContent = json.RawMessage(text)
		}
	}
	if loc != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: "Location: " + loc})
	}
	return res
}

// restStep is one call of the notes API, as a tool call and as the same
// request over HTTP.
type restStep struct {
	tool, args        string
	method, uri, body string // the HTTP request
	auth              string // the Authorization header, on both doors
	status            int    // what the HTTP door answers
}

// restRoutes are the tools' routes, as the report lists them.
var restRoutes = map[string]string{
	"list_notes":              "GET /api/notes/",
	"create_note":             "POST /api/notes/",
	"search_notes":            "GET /api/notes/search",
	"get_note":                "GET /api/notes/{id}/",
	"update_note":             "PATCH /api/notes/{id}/",
	"delete_note":             "DELETE /api/notes/{id}/",
	"archive_note":            "POST /api/notes/{id}/archive",
	"admin_stats":             "GET /api/admin/stats",
	"delete_admin_user_notes": "DELETE /api/admin/users/{user:[a-z0-9_-]+}/notes",
}

// TestRESTParity runs every route of the rest example through the HTTP
// door in one session and the same calls through the MCP door in another,
// and compares each answer (status, body bytes, errors) with the MCP
// result the contract derives from it: URL parameters, query parameters,
// bodies, 201 with a Location, 204, the routes' own 4xx, and the auth
// group's and the mounted admin router's refusals, with and without the
// forwarded Authorization header.
func TestRESTParity(t *testing.T) {
	s := restServer(t)
	web, agent := s.newClient(), s.newClient()
	web.send("GET", "/healthz", "") // the cookie sessions
	agent.send("GET", "/healthz", "")
	user := agent.connect(mcpOptions{header: http.Header{"Authorization": {userToken}}})
	admin := agent.connect(mcpOptions{header: http.Header{"Authorization": {adminToken}}})
	anonymous := agent.connect(mcpOptions{})
	clients := map[string]*mcp.ClientSession{userToken: user, adminToken: admin, "": anonymous}

	steps := []restStep{
		{"create_note", `{"text":"buy milk","tags":["home","errand","home"]}`, "POST", "/api/notes/", `{"text":"buy milk","tags":["home","errand","home"]}`, userToken, 201},
		{"create_note", `{"text":"Call Ann"}`, "POST", "/api/notes/", `{"text":"Call Ann"}`, userToken, 201},
		{"create_note", `{"text":"water plants","tags":["home"]}`, "POST", "/api/notes/", `{"text":"water plants","tags":["home"]}`, userToken, 201},
		{"create_note", `{"text":"  "}`, "POST", "/api/notes/", `{"text":"  "}`, userToken, 422},
		{"list_notes", `{}`, "GET", "/api/notes/", "", userToken, 200},
		{"list_notes", `{"tag":"home","limit":1}`, "GET", "/api/notes/?limit=1&tag=home", "", userToken, 200},
		{"list_notes", `{"tag":"nothing"}`, "GET", "/api/notes/?tag=nothing", "", userToken, 200},
		{"search_notes", `{"q":"ANN"}`, "GET", "/api/notes/search?q=ANN", "", userToken, 200},
		{"search_notes", `{"q":"a b&c=d"}`, "GET", "/api/notes/search?q=a+b%26c%3Dd", "", userToken, 200},
		{"get_note", `{"id":"2"}`, "GET", "/api/notes/2/", "", userToken, 200},
		{"get_note", `{"id":"99"}`, "GET", "/api/notes/99/", "", userToken, 404},
		{"update_note", `{"id":"2","tags":["work"]}`, "PATCH", "/api/notes/2/", `{"tags":["work"]}`, userToken, 200},
		{"update_note", `{"text":"Call Ann back","id":"2"}`, "PATCH", "/api/notes/2/", `{"text":"Call Ann back"}`, userToken, 200},
		{"update_note", `{"id":"2","text":""}`, "PATCH", "/api/notes/2/", `{"text":""}`, userToken, 422},
		{"archive_note", `{"id":"2"}`, "POST", "/api/notes/2/archive", `{}`, userToken, 200},
		{"archive_note", `{"id":"2"}`, "POST", "/api/notes/2/archive", `{}`, userToken, 409},
		{"delete_note", `{"id":"1"}`, "DELETE", "/api/notes/1/", "", userToken, 204},
		{"get_note", `{"id":"1"}`, "GET", "/api/notes/1/", "", userToken, 404},
		{"delete_note", `{"id":"1"}`, "DELETE", "/api/notes/1/", "", userToken, 404},
		// The auth group: without the forwarded header, and with another
		// user's.
		{"list_notes", `{}`, "GET", "/api/notes/", "", "", 401},
		{"create_note", `{"text":"x"}`, "POST", "/api/notes/", `{"text":"x"}`, "", 401},
		{"get_note", `{"id":"2"}`, "GET", "/api/notes/2/", "", adminToken, 401},
		// The mounted admin router: its own token.
		{"admin_stats", `{}`, "GET", "/api/admin/stats", "", userToken, 403},
		{"admin_stats", `{}`, "GET", "/api/admin/stats", "", "", 403},
		{"admin_stats", `{}`, "GET", "/api/admin/stats", "", adminToken, 200},
		{"delete_admin_user_notes", `{"user":"nobody"}`, "DELETE", "/api/admin/users/nobody/notes", "", adminToken, 200},
		{"delete_admin_user_notes", `{"user":"demo"}`, "DELETE", "/api/admin/users/demo/notes", "", userToken, 403},
		{"delete_admin_user_notes", `{"user":"demo"}`, "DELETE", "/api/admin/users/demo/notes", "", adminToken, 200},
		{"list_notes", `{}`, "GET", "/api/notes/", "", userToken, 200},
	}
	readOnly := map[string]bool{"list_notes": true, "search_notes": true, "get_note": true, "admin_stats": true}
	for i, st := range steps {
		t.Run(fmt.Sprintf("%02d %s %s", i, st.tool, st.args), func(t *testing.T) {
			var auth []string // the Authorization header, if any
			if st.auth != "" {
				auth = []string{"Authorization", st.auth}
			}
			hr := web.send(st.method, st.uri, st.body, auth...)
			if hr.Status != st.status {
				t.Fatalf("HTTP door: %s %s: %d %s, want %d", st.method, st.uri, hr.Status, hr.Body, st.status)
			}
			res := call(t, clients[st.auth], st.tool, rawArgs(st.args))
			sameJSON(t, res, restExpected(t, restRoutes[st.tool], readOnly[st.tool], hr))
		})
	}
}

// TestRESTRefusals: arguments the MCP door refuses before the route runs,
// where the HTTP door's route refuses the same request its own way.
func TestRESTRefusals(t *testing.T) {
	s := restServer(t)
	cs := s.connect(mcpOptions{header: http.Header{"Authorization": {userToken}}})
	for _, tc := range []struct {
		tool, args string
		method     string // the HTTP door's request, and its answer
		uri        string
		status     int
		want       string // the MCP result's text
	}{
		{"list_notes", `{"limit":0}`, "GET", "/api/notes/?limit=0", 400,
			"HTTP 422 from GET /api/notes/: Invalid arguments for list_notes (checked against its input schema; the route was not called): limit: 0 is less than the minimum, 1"},
		{"search_notes", `{}`, "GET", "/api/notes/search", 400,
			"HTTP 422 from GET /api/notes/search: Invalid arguments for search_notes (checked against its input schema; the route was not called): missing required field q"},
		{"get_note", `{"id":"abc"}`, "GET", "/api/notes/abc/", 404,
			`HTTP 422 from GET /api/notes/{id}/: Invalid arguments for get_note (checked against its input schema; the route was not called): id: pattern: "abc" does not match regular expression "^[0-9]+$"`},
		{"create_note", `{"txt":"x"}`, "POST", "/api/notes/", 400,
			"HTTP 422 from POST /api/notes/: Invalid arguments for create_note (checked against its input schema; the route was not called): missing required field text"},
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			body := ""
			if tc.method == "POST" {
				body = tc.args
			}
			if hr := s.send(tc.method, tc.uri, body, "Authorization", userToken); hr.Status != tc.status {
				t.Errorf("HTTP door: %d %s, want %d", hr.Status, hr.Body, tc.status)
			}
			res := call(t, cs, tc.tool, rawArgs(tc.args))
			if !res.IsError || res.Content[0].(*mcp.TextContent).Text != tc.want {
				t.Errorf("MCP door: %s\nwant the text %s", resultJSON(t, res), tc.want)
			}
		})
	}
}

// TestRESTTypeScript: the official TypeScript SDK client lists the rest
// example's tools and calls them, URL and query parameters included, with
// its bearer token on every request.
func TestRESTTypeScript(t *testing.T) {
	nodeclient.Node(t)
	s := restServer(t)
	out := nodeclient.Run(t, nodeclient.Scenario{
		URL:     s.url + "/mcp",
		Headers: map[string]string{"Authorization": userToken},
		Steps: []nodeclient.Step{
			nodeclient.List(),
			nodeclient.Call("create_note", map[string]any{"text": "buy milk", "tags": []string{"home"}}),
			nodeclient.Call("create_note", map[string]any{"text": "call Ann"}),
			nodeclient.Call("list_notes", map[string]any{"tag": "home", "limit": 5}),
			nodeclient.Call("update_note", map[string]any{"id": "2", "tags": []string{"work"}}),
			nodeclient.Call("delete_note", map[string]any{"id": "1"}),
			nodeclient.Call("get_note", map[string]any{"id": "1"}),
			nodeclient.Call("get_note", map[string]any{"id": "../admin/stats"}),
		},
	})
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	out.Decode(t, 0, &list)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.Name == "get_note" {
			if got := compactJSON(t, tl.InputSchema); got != `{"type":"object","properties":{"id":{"type":"string","description":"the note's id","pattern":"^[0-9]+$"}},"required":["id"],"additionalProperties":false}` {
				t.Errorf("get_note's input schema: %s", got)
			}
			if got := compactJSON(t, tl.Annotations); got != `{"readOnlyHint":true,"idempotentHint":false}` {
				t.Errorf("get_note's annotations: %s", got)
			}
		}
	}
	if got := strings.Join(names, " "); got != "admin_stats archive_note create_note delete_admin_user_notes delete_note get_note list_notes search_notes update_note" {
		t.Errorf("tools: %s", got)
	}
	for i, want := range []string{
		`{"content":[{"type":"text","text":"{\"id\":1,\"text\":\"buy milk\",\"tags\":[\"home\"],\"archived\":false}"},{"type":"text","text":"Location: /api/notes/1/"}],"structuredContent":{"id":1,"text":"buy milk","tags":["home"],"archived":false}}`,
		`{"content":[{"type":"text","text":"{\"id\":2,\"text\":\"call Ann\",\"tags\":[],\"archived\":false}"},{"type":"text","text":"Location: /api/notes/2/"}],"structuredContent":{"id":2,"text":"call Ann","tags":[],"archived":false}}`,
		`{"content":[{"type":"text","text":"{\"notes\":[{\"id\":1,\"text\":\"buy milk\",\"tags\":[\"home\"],\"archived\":false}]}"}],"structuredContent":{"notes":[{"id":1,"text":"buy milk","tags":["home"],"archived":false}]}}`,
		`{"content":[{"type":"text","text":"{\"id\":2,\"text\":\"call Ann\",\"tags\":[\"work\"],\"archived\":false}"}],"structuredContent":{"id":2,"text":"call Ann","tags":["work"],"archived":false}}`,
		`{"content":[{"type":"text","text":"204 No Content"}],"structuredContent":{"status":204}}`,
		`{"content":[{"type":"text","text":"HTTP 404 from GET /api/notes/{id}/: {\"error\":\"no note \\\"1\\\"\"}"}],"structuredContent":{"error":{"code":"not_found","message":"no note \"1\"","status":404,"effect":"not_applied"}},"isError":true}`,
		`{"content":[{"type":"text","text":"HTTP 422 from GET /api/notes/{id}/: Invalid arguments for get_note (checked against its input schema; the route was not called): id: pattern: \"../admin/stats\" does not match regular expression \"^[0-9]+$\""}],"structuredContent":{"error":{"code":"invalid_arguments","message":"id: pattern: \"../admin/stats\" does not match regular expression \"^[0-9]+$\"","fields":["id"],"status":422,"effect":"not_applied"}},"isError":true}`,
	} {
		if got := compactJSON(t, out.Results[1+i]); got != want {
			t.Errorf("call %d:\n got %s\nwant %s", 1+i, got, want)
		}
	}
}
