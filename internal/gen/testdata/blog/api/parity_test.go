package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// TestParityToolRoutes serves the blog's body-reading handlers as tool
// routes (POST /<name>) and makes the kit's Parity calls through both
// doors: the generated schemas take every body the handlers take — extra
// members, optional ones left out, nulls — and refuse nothing more.
func TestParityToolRoutes(t *testing.T) {
	s := NewStore()
	users := &Users{Store: s}
	r := chi.NewRouter()
	r.Post("/create_article", s.CreateArticle)
	r.Post("/create_user", users.Create)
	r.Post("/search", s.Search)
	r.With(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rctx := chi.RouteContext(r.Context())
			rctx.URLParams.Add("articleID", "1")
			next.ServeHTTP(w, r)
		})
	}).Post("/add_comment", NewCommentHandler(s))
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "blog", ExposeToolsOverMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer door.Close()
	srv := autoexposetest.NewServer(t, door, door)
	srv.Parity(t,
		autoexposetest.Call{Tool: "create_article", Arguments: `{"title":"Hi"}`},
		autoexposetest.Call{Tool: "create_article", Arguments: `{"title":"Hi","slug":"hi","tags":["a"],"author":"ada","draft":true,"extra":{"x":1}}`},
		autoexposetest.Call{Tool: "create_article", Arguments: `{"title":"Hi","tags":null,"text":null,"user_id":3}`},
		autoexposetest.Call{Tool: "create_user", Arguments: `{"name":"Bo","email":"bo@example.com"}`},
		autoexposetest.Call{Tool: "create_user", Arguments: `{"name":"Bo","email":"bo@example.com","roles":["admin"],"bio":"hi","website":null}`},
		autoexposetest.Call{Tool: "search", Arguments: `{}`},
		autoexposetest.Call{Tool: "search", Arguments: `{"terms":["hello"],"in":"articles","exact":false,"page":2}`},
		autoexposetest.Call{Tool: "add_comment", Arguments: `{"body":"Nice."}`},
		autoexposetest.Call{Tool: "add_comment", Arguments: `{"body":"Nice.","author":"ada","notify":true,"mood":"glad"}`},
	)
}

// restCall is one call of a REST tool: the HTTP request a client would
// make, and the tool's arguments that stand for it.
type restCall struct {
	tool, method, path, body, args string
}

// TestParityREST makes REST calls through both doors — the HTTP request,
// and the MCP tool call of the same arguments — on the adoption path's
// door: every request the route answers with a success, the MCP door
// serves too, with the same answer; none is refused for its arguments.
func TestParityREST(t *testing.T) {
	door, cs, _ := install(t)
	srv := httptest.NewServer(door)
	defer srv.Close()
	byRoute := map[string]string{}
	for _, row := range door.Report() {
		byRoute[row.Route] = row.Tool
	}
	for _, c := range []restCall{
		{"GET /articles/", "GET", "/articles/?limit=5&tag=intro", "", `{"limit":5,"tag":"intro"}`},
		{"GET /articles/", "GET", "/articles/", "", `{}`},
		{"GET /articles/", "GET", "/articles/?limit=1&unknown=x", "", `{"limit":1,"unknown":"x"}`},
		{"GET /users/", "GET", "/users/?q=ad&page=1&active=true", "", `{"q":"ad","page":1,"active":true}`},
		{"GET /articles/{articleID}/", "GET", "/articles/1/", "", `{"articleID":"1"}`},
		{"PUT /articles/{articleID}/", "PUT", "/articles/1/", `{"text":"Changed."}`, `{"articleID":"1","text":"Changed."}`},
		{"PUT /articles/{articleID}/", "PUT", "/articles/1/", `{"title":"New","tags":["a","b"],"draft":null,"x":1}`, `{"articleID":"1","title":"New","tags":["a","b"],"draft":null,"x":1}`},
		{"GET /articles/{articleID}/comments", "GET", "/articles/1/comments?author=ada&author=bo", "", `{"articleID":"1","author":["ada","bo"]}`},
		{"GET /articles/{articleID}/comments", "GET", "/articles/1/comments?author=ada", "", `{"articleID":"1","author":"ada"}`},
		{"POST /articles/search", "POST", "/articles/search", `{"terms":["hel"]}`, `{"terms":["hel"]}`},
		{"GET /users/{userID}", "GET", "/users/1", "", `{"userID":"1"}`},
	} {
		tool := byRoute[c.tool]
		if tool == "" {
			t.Errorf("no tool serves %s", c.tool)
			continue
		}
		status, body := httpCall(t, srv.URL, c)
		if status < 200 || status > 299 {
			t.Errorf("%s %s: HTTP %d %s; the calls must be ones the route takes", c.method, c.path, status, body)
			continue
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Errorf("%s %s: %v", tool, c.args, err)
			continue
		}
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if res.IsError {
			t.Errorf("%s %s: the MCP door answers an error, the route answered %d %s:\n%s", tool, c.args, status, body, text)
			continue
		}
		if !sameJSON(text, body) {
			t.Errorf("%s %s: the MCP door answers\n  %s\nthe route\n  %s", tool, c.args, text, body)
		}
	}
}

func httpCall(t *testing.T, base string, c restCall) (int, string) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	u, _ := url.Parse(base + c.path)
	req, _ := http.NewRequest(c.method, u.String(), body)
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(bytes.TrimSpace(b))
}

// sameJSON reports whether two texts are the same JSON value, or the same
// text.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
