package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// expectedResult is the MCP result the contract derives from what the HTTP
// door answered. It is written out here, apart from the implementation, so
// that the parity tests check one against the other.
//
// typed says the tool advertises an output schema: its error envelope then
// comes in the result's _meta rather than as structuredContent.
func expectedResult(t *testing.T, tool string, r httpResponse, code, effect string, typed bool) *mcp.CallToolResult {
	t.Helper()
	if r.Status < 200 || r.Status > 299 {
		text := strings.TrimRight(string(r.Body), " \r\n\t")
		if text == "" {
			text = http.StatusText(r.Status)
		}
		return errorExpected(fmt.Sprintf("HTTP %d from POST /%s: %s", r.Status, tool, text), typed,
			envelope{Code: code, Message: messageOf(text), Status: r.Status, Effect: effect})
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "image/png":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: r.Body, MIMEType: mt}}}
	case mt == "application/json":
		text := compactJSON(t, r.Body)
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if strings.HasPrefix(text, "{") {
			res.StructuredContent = json.RawMessage(text)
		}
		return res
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(r.Body)}}}
}

// refusedArguments is the MCP result of arguments the door refuses before
// the route runs, derived from the 422 a typed route answers the HTTP door
// for the same arguments: {"error":"invalid arguments","fields":[...],"detail":"..."}.
func refusedArguments(t *testing.T, tool string, r httpResponse, typed bool) *mcp.CallToolResult {
	t.Helper()
	var body struct {
		Fields []string `json:"fields"`
		Detail string   `json:"detail"`
	}
	if r.Status != 422 || json.Unmarshal(r.Body, &body) != nil || body.Detail == "" {
		t.Fatalf("HTTP door: %d %s, want the 422 of invalid arguments", r.Status, r.Body)
	}
	return errorExpected(fmt.Sprintf("HTTP 422 from POST /%s: Invalid arguments for %s (checked against its input schema; the route was not called): %s", tool, tool, body.Detail), typed,
		envelope{Code: "invalid_arguments", Message: body.Detail, Fields: body.Fields, Status: 422, Effect: "not_applied"})
}

// messageOf is the message an error body gives: the text under "error" (or
// "error"."message"), "message", "detail" or "title" of a JSON object, in
// that order, else the body itself.
func messageOf(body string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(body), &obj) != nil {
		return body
	}
	if e, ok := obj["error"].(map[string]any); ok {
		if m, ok := e["message"].(string); ok && m != "" {
			return m
		}
	}
	for _, k := range []string{"error", "message", "detail", "title"} {
		if m, ok := obj[k].(string); ok && m != "" {
			return m
		}
	}
	return body
}

// envelope is the error envelope, fields in wire order.
type envelope struct {
	Code         string   `json:"code"`
	Message      string   `json:"message"`
	Fields       []string `json:"fields,omitempty"`
	Status       int      `json:"status"`
	Effect       string   `json:"effect"`
	RetryAfterMs int64    `json:"retry_after_ms,omitempty"`
}

// errorExpected is an isError result with the given text and envelope: as
// structuredContent, or for a tool with an output schema (typed) in _meta.
func errorExpected(text string, typed bool, e envelope) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	env := map[string]envelope{"error": e}
	if !typed {
		res.StructuredContent = env
		return res
	}
	res.Meta = mcp.Meta{"mcpdoor/error": env}
	return res
}

// sameJSON compares two values by their JSON: the documents they encode
// to, whatever the order of their keys.
func sameJSON(t *testing.T, got, want any) {
	t.Helper()
	if res, ok := got.(*mcp.CallToolResult); ok {
		got = json.RawMessage(resultJSON(t, res))
	}
	if diff := cmp.Diff(asJSON(t, want), asJSON(t, got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// asJSON is the JSON document v encodes to, decoded into maps, slices and
// scalars.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestParity sends the same request through both doors of the fixture and
// checks that the MCP result is the HTTP response mapped as specified.
func TestParity(t *testing.T) {
	var logs bytes.Buffer
	cfg := fixtureConfig(t)
	cfg.Logger = newLogger(&logs)
	h, door, _ := newFixture(t, cfg)
	s := inProcess(t, h, door)

	cases := []struct {
		name, tool, args string
		status           int    // what the HTTP door answers
		code             string // the error envelope's code, for non-2xx; invalid_arguments: the door refuses them
	}{
		{"typed ok", "weather", `{"city":"Paris"}`, 200, ""},
		{"typed wrong type", "weather", `{"city":5}`, 422, "invalid_arguments"},
		{"typed missing field", "weather", `{}`, 422, "invalid_arguments"},
		{"typed unknown field", "weather", `{"city":"Rome","when":"now"}`, 422, "invalid_arguments"},
		{"typed not an object", "weather", `[1]`, 422, "invalid_arguments"},
		{"typed 4xx with a body", "weather", `{"city":"Atlantis"}`, 404, "not_found"},
		{"typed unexpected error", "weather", `{"city":"Error"}`, 500, "internal_server_error"},
		{"map body", "map_body", `{"b":1,"a":[2]}`, 200, ""},
		{"raw body", "raw_echo", `{"z":1,"a":{"y":2,"b":3}}`, 200, ""},
		{"handler status and body kept", "teapot", `{}`, 418, "im_a_teapot"},
		{"panic", "boom", `{}`, 500, "internal_server_error"},
		{"non-JSON 2xx", "text", `{}`, 200, ""},
		{"JSON array 2xx", "array", `{}`, 200, ""},
		{"no content", "nocontent", `{}`, 204, ""},
		{"problem+json 4xx", "problem", `{}`, 409, "conflict"},
		{"image", "image", `{}`, 200, ""},
		{"image without a Content-Type", "sniffed_image", `{}`, 200, ""},
	}
	for _, proto := range []string{"2025-11-25", ""} {
		t.Run("protocol="+proto, func(t *testing.T) {
			cs := s.connectSeeded(mcpOptions{protocol: proto})
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					hr := s.post("/"+c.tool, c.args)
					if hr.Status != c.status {
						t.Fatalf("HTTP door: status %d, want %d (body %q)", hr.Status, c.status, hr.Body)
					}
					res := call(t, cs, c.tool, rawArgs(c.args))
					if c.code == "invalid_arguments" {
						sameJSON(t, res, refusedArguments(t, c.tool, hr, true))
						return
					}
					effect := "not_applied"
					if c.status >= 500 {
						effect = "unknown"
					}
					sameJSON(t, res, expectedResult(t, c.tool, hr, c.code, effect, c.tool == "weather"))
				})
			}
		})
	}

	// The kit's Parity makes the same calls through both doors, each in a
	// session of its own, and compares them by the Door's own mapping.
	t.Run("the kit's Parity", func(t *testing.T) {
		calls := make([]autoexposetest.Call, len(cases))
		for i, c := range cases {
			calls[i] = autoexposetest.Call{Tool: c.tool, Arguments: c.args}
		}
		s.ts.Parity(t, calls...)
	})

	t.Run("raw body reaches the handler unchanged", func(t *testing.T) {
		cs := s.connectSeeded(mcpOptions{})
		const args = `{"z":1,"a":{"y":2,"b":3}}` // key order a re-marshal would sort
		res := call(t, cs, "raw_echo", rawArgs(args))
		if got := res.Content[0].(*mcp.TextContent).Text; got != args {
			t.Errorf("handler saw %s, want %s", got, args)
		}
	})

	t.Run("a panic is sanitized and logged", func(t *testing.T) {
		cs := s.connectSeeded(mcpOptions{})
		res := call(t, cs, "boom", nil)
		got := resultJSON(t, res)
		if strings.Contains(got, "kaboom") {
			t.Errorf("panic detail reached the client: %s", got)
		}
		if !strings.Contains(logs.String(), "kaboom: secret detail") {
			t.Errorf("panic not logged; log:\n%s", logs.String())
		}
		// The server is alive.
		if res := call(t, cs, "weather", map[string]any{"city": "Oslo"}); res.IsError {
			t.Errorf("after a panic: %s", resultJSON(t, res))
		}
	})
}

// TestResultMapping checks the MCP door's answers that have no HTTP
// counterpart to compare with: a corrupt image, and the exact texts.
func TestResultMapping(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)
	cs := s.connectSeeded(mcpOptions{})

	cases := []struct {
		name, tool string
		args       any
		want       string // the result's JSON
	}{
		{"corrupt image", "bad_image", nil,
			`{"content":[{"type":"text","text":"Response from POST /bad_image is not a valid image/png image: the data is gif."}],"structuredContent":{"error":{"code":"bad_response","message":"the data is gif","status":200,"effect":"unknown"}},"isError":true}`},
		{"wrong type", "weather", map[string]any{"city": 5},
			`{"_meta":{"mcpdoor/error":{"error":{"code":"invalid_arguments","message":"city: want string, got integer","fields":["city"],"status":422,"effect":"not_applied"}}},"content":[{"type":"text","text":"HTTP 422 from POST /weather: Invalid arguments for weather (checked against its input schema; the route was not called): city: want string, got integer"}],"isError":true}`},
		{"missing field", "weather", map[string]any{},
			`{"_meta":{"mcpdoor/error":{"error":{"code":"invalid_arguments","message":"missing required field city","fields":["city"],"status":422,"effect":"not_applied"}}},"content":[{"type":"text","text":"HTTP 422 from POST /weather: Invalid arguments for weather (checked against its input schema; the route was not called): missing required field city"}],"isError":true}`},
		{"teapot", "teapot", nil,
			`{"content":[{"type":"text","text":"HTTP 418 from POST /teapot: I'm a teapot"}],"structuredContent":{"error":{"code":"im_a_teapot","message":"I'm a teapot","status":418,"effect":"not_applied"}},"isError":true}`},
		// A handler's unexpected error is not shown to the model (NeMo Gym
		// shows its repr): "database is down" stays in the server.
		{"unexpected error", "weather", map[string]any{"city": "Error"},
			`{"_meta":{"mcpdoor/error":{"error":{"code":"internal_server_error","message":"internal server error","status":500,"effect":"unknown"}}},"content":[{"type":"text","text":"HTTP 500 from POST /weather: {\"error\":\"internal server error\"}"}],"isError":true}`},
		{"panic", "boom", nil,
			`{"content":[{"type":"text","text":"HTTP 500 from POST /boom: Internal Server Error"}],"structuredContent":{"error":{"code":"internal_server_error","message":"Internal Server Error","status":500,"effect":"unknown"}},"isError":true}`},
		{"text", "text", nil, `{"content":[{"type":"text","text":"hello, world"}]}`},
		{"object", "weather", map[string]any{"city": "Paris"},
			`{"content":[{"type":"text","text":"{\"weather\":\"The weather in Paris is sunny and 72 F.\"}"}],"structuredContent":{"weather":"The weather in Paris is sunny and 72 F."}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameJSON(t, call(t, cs, c.tool, c.args), json.RawMessage(c.want))
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"})
		want := `unknown tool "nope"; available tools: array, bad_image, boom, history, image, map_body, nocontent, problem, raw_echo, sniffed_image, steps, teapot, text, weather`
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != want {
			t.Fatalf("got %v, want JSON-RPC error -32602 %q", err, want)
		}
	})
}

// TestSharedSession: an HTTP call then MCP calls then an HTTP call in one
// client's session see the same state, in order; another client does not.
func TestSharedSession(t *testing.T) {
	h, door, _ := newFixture(t, fixtureConfig(t))
	s := inProcess(t, h, door)

	cs := s.connectSeeded(mcpOptions{}) // the token names the cookie's session
	if r := s.post("/weather", `{"city":"Paris"}`); r.Status != 200 {
		t.Fatalf("HTTP door: %d %s", r.Status, r.Body)
	}
	call(t, cs, "weather", map[string]any{"city": "Oslo"})
	call(t, cs, "map_body", map[string]any{"k": 1})
	res := call(t, cs, "history", nil)
	sameJSON(t, res.StructuredContent, map[string]any{"history": []string{"Paris", "Oslo", "map_body"}})
	if r := s.post("/history", `{}`); compactJSON(t, r.Body) != `{"history":["Paris","Oslo","map_body"]}` {
		t.Errorf("HTTP door sees %s", r.Body)
	}

	other := s.newClient()
	if r := other.post("/history", `{}`); compactJSON(t, r.Body) != `{"history":[]}` {
		t.Errorf("another client sees %s", r.Body)
	}
}
