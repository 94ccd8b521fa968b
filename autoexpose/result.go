package autoexpose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // image/gif responses are decoded and checked
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/replay"
)

// maxImagePixels refuses to decode images larger than this, so a small
// compressed response cannot make the server allocate gigabytes.
const maxImagePixels = 64 << 20

// ErrorEnvelope is the structuredContent of an isError result:
// {"error": {"code", "message", "status", "effect"}}.
type ErrorEnvelope struct {
	Error ErrorInfo `json:"error"`
}

// ErrorInfo describes a failed call for a program.
type ErrorInfo struct {
	// Code names the failure: an HTTP status in snake case
	// ("unprocessable_entity"), or one of mcpdoor's own:
	//   - "missing_token", "invalid_token", "tool_not_allowed": the session
	//     token's checks (401, 401, 403);
	//   - "rate_limited": over mcp.rate_limit (429; see RetryAfterMs);
	//   - "request_too_large": arguments over mcp.max_body_bytes (413);
	//   - "timeout": no answer within mcp.call_timeout (504);
	//   - "response_too_large": a response over mcp.max_body_bytes;
	//   - "bad_response": an image or audio response that is not what its
	//     Content-Type says.
	//   - "request_ended": the HTTP request that carried the call ended
	//     before the call started, so it was not run (499).
	Code    string `json:"code"`
	Message string `json:"message"`
	// Status is the HTTP status the call got or would have got.
	Status int `json:"status"`
	// Effect says whether the call may have changed anything: not_applied
	// (it was refused before it ran, answered 4xx, or the tool is read-only)
	// or unknown.
	Effect string `json:"effect"`
	// RetryAfterMs is set with code rate_limited: the milliseconds until the
	// session may call again. Omitted otherwise.
	RetryAfterMs int64 `json:"retry_after_ms,omitempty"`
}

// Effects of a failed call.
const (
	EffectNotApplied = "not_applied"
	EffectUnknown    = "unknown"
)

// fail is an isError result for t: text for a model, and the envelope for
// a program, as structuredContent. A tool that advertises an output schema
// gets the envelope as a second text block instead, since clients check
// structuredContent against that schema even in an error.
func (t *tool) fail(text string, info ErrorInfo) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	envelope := ErrorEnvelope{Error: info}
	if t.OutputSchema == nil {
		res.StructuredContent = envelope
		return res
	}
	b, _ := json.Marshal(envelope)
	res.Content = append(res.Content, &mcp.TextContent{Text: string(b)})
	return res
}

// statusCode names an HTTP status for ErrorInfo.Code.
func statusCode(status int) string {
	text := http.StatusText(status)
	if text == "" {
		return fmt.Sprintf("http_%d", status)
	}
	text = strings.NewReplacer(" ", "_", "-", "_", "'", "").Replace(strings.ToLower(text))
	return text
}

// result maps a dispatched route's response to the MCP result a client gets
// (see the package documentation, "Results").
func (t *tool) result(resp *replay.Response) *mcp.CallToolResult {
	if resp.Truncated {
		return t.fail(
			fmt.Sprintf("Response from POST %s exceeds the %d-byte limit (mcp.max_body_bytes).", t.path, len(resp.Body)),
			ErrorInfo{Code: "response_too_large", Message: fmt.Sprintf("the response exceeds %d bytes", len(resp.Body)), Status: resp.Status, Effect: EffectUnknown})
	}
	body := resp.Body
	if resp.Status < 200 || resp.Status > 299 {
		msg := strings.TrimRight(string(body), " \t\r\n")
		if msg == "" {
			msg = http.StatusText(resp.Status)
		}
		effect := EffectUnknown
		if resp.Status < 500 || t.readOnly() {
			effect = EffectNotApplied
		}
		return t.fail(
			fmt.Sprintf("HTTP %d from POST %s: %s", resp.Status, t.path, msg),
			ErrorInfo{Code: statusCode(resp.Status), Message: msg, Status: resp.Status, Effect: effect})
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "" && !json.Valid(body) {
		// What an HTTP client would be told: net/http sniffs the type of a
		// response that sets none.
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml":
		return t.imageResult(mediaType, body, resp.Status)
	case strings.HasPrefix(mediaType, "audio/"):
		return t.audioResult(mediaType, body, resp.Status)
	case isJSONType(mediaType) || (mediaType == "" && json.Valid(body)):
		return jsonResult(body)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}

func isJSONType(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// jsonResult: an object becomes structuredContent plus the same JSON as
// text; any other JSON is text.
func jsonResult(body []byte) *mcp.CallToolResult {
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	}
	text := compact.String()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if strings.HasPrefix(text, "{") {
		res.StructuredContent = json.RawMessage(compact.Bytes())
	}
	return res
}

// imageFormats maps an image MIME type to the name image.Decode gives its
// format.
var imageFormats = map[string]string{
	"image/png":  "png",
	"image/jpeg": "jpeg",
	"image/jpg":  "jpeg",
	"image/gif":  "gif",
}

func (t *tool) imageResult(mediaType string, body []byte, status int) *mcp.CallToolResult {
	bad := func(why string) *mcp.CallToolResult {
		return t.fail(
			fmt.Sprintf("Response from POST %s is not a valid %s image: %s.", t.path, mediaType, why),
			ErrorInfo{Code: "bad_response", Message: why, Status: status, Effect: EffectUnknown})
	}
	want, ok := imageFormats[mediaType]
	if !ok {
		return bad("mcpdoor cannot check this image type; serve PNG, JPEG or GIF")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return bad(err.Error())
	}
	if format != want {
		return bad(fmt.Sprintf("the data is %s", format))
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return bad(fmt.Sprintf("%dx%d pixels is more than mcpdoor decodes", cfg.Width, cfg.Height))
	}
	if _, _, err := image.Decode(bytes.NewReader(body)); err != nil {
		return bad(err.Error())
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: body, MIMEType: mediaType}}}
}

// audioMagic gives the leading bytes of the audio formats mcpdoor checks.
var audioMagic = map[string][][]byte{
	"audio/wav":   {[]byte("RIFF")},
	"audio/x-wav": {[]byte("RIFF")},
	"audio/wave":  {[]byte("RIFF")},
	"audio/mpeg":  {[]byte("ID3"), {0xff, 0xfb}, {0xff, 0xf3}, {0xff, 0xf2}},
	"audio/ogg":   {[]byte("OggS")},
	"audio/flac":  {[]byte("fLaC")},
}

func (t *tool) audioResult(mediaType string, body []byte, status int) *mcp.CallToolResult {
	magic, known := audioMagic[mediaType]
	ok := len(body) > 0 && !known
	for _, m := range magic {
		ok = ok || bytes.HasPrefix(body, m)
	}
	if !ok {
		why := "the response is empty"
		if len(body) > 0 {
			why = "the data does not start like " + mediaType
		}
		return t.fail(
			fmt.Sprintf("Response from POST %s is not valid %s audio: %s.", t.path, mediaType, why),
			ErrorInfo{Code: "bad_response", Message: why, Status: status, Effect: EffectUnknown})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: body, MIMEType: mediaType}}}
}
