package toolset

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrorInfo describes a failed tool call for a program. An isError result
// carries it as {"error": ErrorInfo}: as its structuredContent when the
// tool advertises no output schema, and otherwise in its _meta, under the
// key ErrorMetaKey (a client checks structuredContent against the output
// schema, even in an error). The result's one text block says the same for
// a model. Its JSON is documented for clients (docs/results.md,
// "Errors"):
//
//	{"code": "invalid_arguments", "message": "...", "fields": ["city"],
//	 "status": 422, "effect": "not_applied", "retry_after_ms": 250}
type ErrorInfo struct {
	// Code names the failure: one of the code constants below, one of the
	// rollout contract's token codes, or, for a route that answered an
	// error status, that status in snake case ("not_found",
	// "unprocessable_entity", "http_499" for a status without a name).
	Code string `json:"code"`
	// Message says what went wrong: for a route's error, the message its JSON
	// body gives ({"error": "..."}, {"message": "..."}, a problem's detail
	// or title), else its body as text.
	Message string `json:"message"`
	// Fields names the offending arguments (code invalid_arguments), as
	// dotted paths: "city", "address.zip", "tags[]".
	Fields []string `json:"fields,omitempty"`
	// Status is the HTTP status the call got, or would have got.
	Status int `json:"status"`
	// Effect says whether the call may have changed anything:
	// effectNotApplied or effectUnknown.
	Effect string `json:"effect"`
	// RetryAfterMs is set with code rate_limited: the milliseconds until the
	// session may call again.
	RetryAfterMs int64 `json:"retry_after_ms,omitempty"`
}

// The failures mcpdoor answers itself, without the route's answer
// (ErrorInfo.Code).
const (
	// the arguments break the tool's input schema, and the route was not
	// called (422)
	CodeInvalidArguments = "invalid_arguments"
	// the arguments exceed mcp.max_body_bytes (413)
	CodeRequestTooLarge = "request_too_large"
	// the session is over mcp.rate_limit (429); see ErrorInfo.RetryAfterMs
	CodeRateLimited = "rate_limited"
	// the route did not answer within mcp.call_timeout (504)
	CodeTimeout = "timeout"
	// the route's response exceeds mcp.max_body_bytes
	CodeResponseTooLarge = "response_too_large"
	// an image or audio response is not what its Content-Type says
	CodeBadResponse = "bad_response"
	// the HTTP request that carried the call ended before the call
	// started; it was not run (499)
	CodeRequestEnded = "request_ended"
)

// Whether a failed call may have changed anything (ErrorInfo.Effect).
const (
	// the call changed nothing: it was refused before the route ran, the
	// route answered 4xx, or the tool is read-only
	EffectNotApplied = "not_applied"
	// the route may have changed something (a 5xx, a timeout, a response
	// mcpdoor could not map)
	EffectUnknown = "unknown"
)

// ErrorMetaKey is the key of a failed call's error envelope in the
// result's _meta, where the tool advertises an output schema (the public
// autoexpose.ErrorMetaKey).
const ErrorMetaKey = "mcpdoor/error"

// Fail is an isError result for t: one text block for a model, and the
// envelope for a program (see ErrorInfo).
func (t *Tool) Fail(text string, info ErrorInfo) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	envelope := map[string]ErrorInfo{"error": info}
	if t.OutputSchema == nil {
		res.StructuredContent = envelope
	} else {
		res.Meta = mcp.Meta{ErrorMetaKey: envelope}
	}
	return res
}

// StatusCode names an HTTP status for ErrorInfo.Code.
func StatusCode(status int) string {
	text := http.StatusText(status)
	if text == "" {
		return fmt.Sprintf("http_%d", status)
	}
	return statusWords.Replace(strings.ToLower(text))
}

// statusWords turns a status text's words into a code's: "Not Found" is
// not_found, "I'm a teapot" im_a_teapot.
var statusWords = strings.NewReplacer(" ", "_", "-", "_", "'", "")

// BodyMessage returns the message an error response's body gives: the
// string under "error" (or under "error"."message"), "message", "detail" or
// "title" of a JSON object, in that order; else the body as text.
func BodyMessage(body string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &obj) != nil {
		return body
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		return s, json.Unmarshal(raw, &s) == nil && s != ""
	}
	if raw, ok := obj["error"]; ok {
		if s, ok := str(raw); ok {
			return s
		}
		var nested struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &nested) == nil && nested.Message != "" {
			return nested.Message
		}
	}
	for _, key := range []string{"message", "detail", "title"} {
		if s, ok := str(obj[key]); ok {
			return s
		}
	}
	return body
}
