package autoexpose

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// The golden tests of the features a tool call may use besides its
// arguments and its answer: questions to the client (Elicit, Sample),
// results of several blocks, REST routes; and the catalog resource, which
// the fast path leaves to the go-sdk.

// onePixelPNG is a 1×1 grey PNG, base64-encoded.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAADklEQVR4nGJiAAQAAP//AAYAA/rQWa4AAAAASUVORK5CYII="

// askingMeta is the _meta of a 2026-07-28 client that can be asked
// questions: one that declares elicitation and sampling.
const askingMeta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

// askingCall is a 2026-07-28 tools/call of tool from a client that can be
// asked questions, with the params members more (raw, "" for none).
func askingCall(id, tool, more string) string {
	if more != "" {
		more = "," + more
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + askingMeta + `,"name":"` + tool + `","arguments":{}` + more + `}}`
}

// inputRequired reads the input-required result of an SSE answer: the keys
// of its questions, and its request state.
func inputRequired(t *testing.T, a answer) (keys []string, state string) {
	t.Helper()
	// The question is the call's answer, which streams nothing: one JSON
	// body.
	data := a.Body
	if a.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("not a JSON answer: %s %q", a.Header.Get("Content-Type"), a.Body)
	}
	var msg struct {
		Result struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(data), &msg); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if msg.Result.ResultType != "input_required" || len(msg.Result.InputRequests) == 0 {
		t.Fatalf("not an input-required result: %s", data)
	}
	for k := range msg.Result.InputRequests {
		keys = append(keys, k)
	}
	return keys, msg.Result.RequestState
}

// TestFastPathGoldenElicit: a handler's Elicit, Sample and Roots on a
// stateless door. Under 2026-07-28 the call's result asks the question (an
// input request, resultType input_required, under the handler's key if it
// names one) and the client calls again with the answer, which the handler
// then gets; a request state that does not verify refuses the call; under an
// older protocol the handler gets the error that says so, and for a client
// that declared no such capability the call that fails for it gets the
// protocol's missing-capability error. Each request, the fast path's answer
// and the go-sdk's alike.
func TestFastPathGoldenElicit(t *testing.T) {
	p := newGoldenPair(t, "", false)
	const v = mcpcall.ProtocolVersion2026
	answers := map[string]string{
		"ask":    `{"action":"accept","content":{"sure":true}}`,
		"sample": `{"role":"assistant","model":"m","content":[{"type":"text","text":"<hi> & bye"}]}`,
	}
	for _, tool := range []string{"ask", "sample"} {
		t.Run(tool, func(t *testing.T) {
			h := callHeader(v, tool)
			first := p.compare(t, goldenRequest{header: h, body: askingCall("1", tool, ""), fast: true})
			keys, state := inputRequired(t, first)
			answered := `"inputResponses":{"` + keys[0] + `":` + answers[tool] + `},"requestState":"` + state + `"`
			second := p.compare(t, goldenRequest{header: h, body: askingCall("2", tool, answered), fast: true})
			// The handler got the answer: for ask, with the default of
			// "why" filled in.
			for _, want := range []string{`"resultType":"complete"`, map[string]string{"ask": `\"why\":\"tidy\"`, "sample": `\u003chi\u003e \u0026 bye`}[tool]} {
				if !strings.Contains(second.Body, want) || strings.Contains(second.Body, `"isError"`) {
					t.Errorf("the answered call's result lacks %s: %s", want, second.Body)
				}
			}

			// An answer the go-sdk cannot read as one: left to it.
			bad := `"inputResponses":{"` + keys[0] + `":{"neither":1}},"requestState":"` + state + `"`
			p.compare(t, goldenRequest{header: h, body: askingCall("3", tool, bad)})
			// A state that does not verify (not signed here, or changed):
			// invalid params, and the handler does not run.
			for id, bad := range map[string]string{"4": "not-a-state", "14": state + "-TAMPERED"} {
				got := p.compare(t, goldenRequest{header: h, body: askingCall(id, tool, `"requestState":"`+bad+`"`), fast: true})
				if want := `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"mcpdoor: tool ` + tool + `: the requestState does not verify: it was changed, or not made by this server for this tool"}}`; got.Status != http.StatusBadRequest || got.Body != want {
					t.Errorf("state %q: %d %s\nwant 400 %s", bad, got.Status, got.Body, want)
				}
			}
			// A client that cannot be asked, whose call then fails: the
			// protocol's missing-capability error.
			got := p.compare(t, goldenRequest{header: h, body: callBody(v, "5", tool, `{}`, ""), fast: true})
			if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `"code":-32021`) {
				t.Errorf("a client that cannot be asked: %d %s, want -32021", got.Status, got.Body)
			}
			// Older protocols: a stateless session cannot ask.
			for _, old := range goldenVersions[:len(goldenVersions)-1] {
				got := p.compare(t, goldenRequest{header: callHeader(old, tool), body: callBody(old, "6", tool, `{}`, ""), fast: true})
				if want := "a stateless MCP session cannot send the client a request on protocol " + old; !strings.Contains(got.Body, want) {
					t.Errorf("%s: the answer does not say %q: %s", old, want, got.Body)
				}
			}
		})
	}
	// An answer that breaks the schema asked with.
	first := p.compare(t, goldenRequest{header: callHeader(v, "ask"), body: askingCall("7", "ask", ""), fast: true})
	keys, state := inputRequired(t, first)
	wrong := `"inputResponses":{"` + keys[0] + `":{"action":"accept","content":{"sure":"yes"}}},"requestState":"` + state + `"`
	p.compare(t, goldenRequest{header: callHeader(v, "ask"), body: askingCall("8", "ask", wrong), fast: true})
	// A named question, after a log line that streams: its key is the
	// handler's, and it is answered unasked; a client that cannot be asked
	// gets the missing-capability error after the log line.
	named := p.compare(t, goldenRequest{header: callHeader(v, "named"), body: askingCall("10", "named", ""), fast: true})
	if !strings.Contains(named.Body, `"inputRequests":{"user_name":{"method":"elicitation/create"`) {
		t.Errorf("the named question: %s", named.Body)
	}
	answered := p.compare(t, goldenRequest{header: callHeader(v, "named"), body: askingCall("11", "named", `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}`), fast: true})
	if !strings.Contains(answered.Body, `\"name\":\"Ada\"`) {
		t.Errorf("the named question answered unasked: %s", answered.Body)
	}
	loud := `"io.modelcontextprotocol/logLevel":"info"`
	p.compare(t, goldenRequest{header: callHeader(v, "named"), body: callBody(v, "12", "named", `{}`, loud), fast: true})
	// Roots, asked and answered.
	rootsMeta := `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	rootsCall := func(id, more string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + rootsMeta + `,"name":"roots","arguments":{}` + more + `}}`
	}
	asked := p.compare(t, goldenRequest{header: callHeader(v, "roots"), body: rootsCall("13", ""), fast: true})
	if !strings.Contains(asked.Body, `"inputRequests":{"client_roots":{"method":"roots/list"`) {
		t.Errorf("roots: %s", asked.Body)
	}
	got := p.compare(t, goldenRequest{header: callHeader(v, "roots"), body: rootsCall("15", `,"inputResponses":{"client_roots":{"roots":[{"uri":"file:///work","name":"work"}]}}`), fast: true})
	if !strings.Contains(got.Body, `file:///work`) || strings.Contains(got.Body, `"isError"`) {
		t.Errorf("roots answered: %s", got.Body)
	}
	// Before 2026-07-28, answers are not part of a call: left to the go-sdk.
	const old = "2025-11-25"
	p.compare(t, goldenRequest{header: callHeader(old, "ask"), body: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask","requestState":"x"}}`})
}

// TestFastPathGoldenRich: a route's result of several content blocks (the
// content convention), under every protocol version.
func TestFastPathGoldenRich(t *testing.T) {
	p := newGoldenPair(t, "", false)
	for _, v := range goldenVersions {
		got := p.compare(t, goldenRequest{header: callHeader(v, "rich"), body: callBody(v, "1", "rich", `{}`, ""), fast: true})
		if !strings.Contains(got.Body, `"type":"image"`) {
			t.Errorf("%s: not the rich result: %s", v, got.Body)
		}
	}
}

// restGoldenBlock is the mcp block of the REST golden doors: every method
// read as REST, and the Authorization header forwarded (the admin routes
// check it).
const restGoldenBlock = `  rest:
    methods: [POST, PUT, PATCH, DELETE, GET]
    names: {"GET /api/notes/search": search_notes, "POST /api/notes/typed": create_typed_note}
  forward_headers: [Authorization]
`

// TestFastPathGoldenREST: REST tools — path, query and body arguments,
// hostile path values, 204 and 201 with a Location, a typed handler, a
// mounted router's header check — through the fast path and the go-sdk.
func TestFastPathGoldenREST(t *testing.T) {
	p := newGoldenPairOn(t, restGoldenBlock, restRouter, func(h http.Handler) *httptest.Server { return httptest.NewServer(h) })
	cases := []struct {
		name, tool, args string
		extra            []string // header pairs
	}{
		{"list", "list_notes", `{}`, nil},
		{"query", "search_notes", `{"q":"a b&c=d","tags":["x","y/z"],"n":3,"flag":true,"none":null}`, nil},
		{"path", "get_note", `{"id":"42"}`, nil},
		{"path as a number", "get_note", `{"id":42}`, nil},
		{"path and body", "update_note", `{"id":"42","text":"new <text>","tags":["a"]}`, nil},
		{"body", "create_note", `{"text":"hello \u2028 world"}`, nil},
		{"typed", "create_typed_note", `{"text":"typed"}`, nil},
		{"typed, invalid", "create_typed_note", `{"text":5}`, nil},
		{"204", "delete_note", `{"id":"9"}`, nil},
		{"201 with Location", "copy_note", `{"id":"9"}`, nil},
		{"201 with Location and a body", "archive_note", `{"id":"9"}`, nil},
		{"hostile: a slash", "get_note", `{"id":"1/2"}`, nil},
		{"hostile: dot dot", "get_note", `{"id":".."}`, nil},
		{"hostile: escapes", "get_note", `{"id":"%2F..%2F"}`, nil},
		{"hostile: a query", "get_note", `{"id":"1?admin=1"}`, nil},
		{"hostile: not the pattern", "get_note", `{"id":"abc"}`, nil},
		{"missing path value", "get_note", `{}`, nil},
		{"mounted, forbidden", "delete_admin_user_file", `{"user":"u","name":"a","ext":"txt"}`, nil},
		{"mounted, forwarded Authorization", "delete_admin_user_file", `{"user":"u","name":"a b","ext":"txt"}`, []string{"Authorization", "Bearer root"}},
		{"mounted, hostile", "delete_admin_user_file", `{"user":"../u","name":"a","ext":"txt"}`, []string{"Authorization", "Bearer root"}},
	}
	for _, v := range []string{"2025-11-25", mcpcall.ProtocolVersion2026} {
		for _, c := range cases {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				if !slices.Contains(p.fastDoor.names, c.tool) {
					t.Fatalf("no tool %s; tools: %v", c.tool, p.fastDoor.names)
				}
				p.compare(t, goldenRequest{header: callHeader(v, c.tool, c.extra...), body: callBody(v, "1", c.tool, c.args, ""), fast: true})
			})
		}
	}
}

// TestFastPathGoldenCatalog: the catalog resource is the go-sdk's to
// serve, under either protocol: resources/list and resources/read answer
// alike with the fast path on and off, and the fast path serves neither.
func TestFastPathGoldenCatalog(t *testing.T) {
	p := newGoldenPair(t, "  catalog: true\n", false)
	const uri = "golden://catalog"
	for _, v := range []string{"2025-11-25", mcpcall.ProtocolVersion2026} {
		list := `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`
		read := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + uri + `"}}`
		if v >= mcpcall.ProtocolVersion2026 {
			list = `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{` + clientMeta + `}}}`
			read = `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{` + clientMeta + `},"uri":"` + uri + `"}}`
		}
		got := p.compare(t, goldenRequest{header: callHeader(v, "", "Mcp-Method", "resources/list", "Mcp-Name", ""), body: list})
		if !strings.Contains(got.Body, `"uri":"`+uri+`"`) {
			t.Errorf("%s: resources/list does not list the catalog: %s", v, got.Body)
		}
		got = p.compare(t, goldenRequest{header: callHeader(v, "", "Mcp-Method", "resources/read", "Mcp-Name", uri), body: read})
		if !strings.Contains(got.Body, `\"name\":\"echo\"`) {
			t.Errorf("%s: resources/read does not read the catalog: %s", v, got.Body)
		}
	}
}
