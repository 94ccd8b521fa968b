package call

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// Result maps a dispatched route's response to the MCP result a client gets
// (docs/results.md).
func Result(t *toolset.Tool, resp *dispatch.Response) *mcp.CallToolResult {
	if resp.Truncated {
		return t.Fail(
			fmt.Sprintf("Response from %s exceeds the %d-byte limit (mcp.max_body_bytes).", t.Request, len(resp.Body)),
			toolset.ErrorInfo{Code: toolset.CodeResponseTooLarge, Message: fmt.Sprintf("the response exceeds %d bytes", len(resp.Body)), Status: resp.Status, Effect: toolset.EffectUnknown})
	}
	if t.REST != nil && resp.Status >= 200 && resp.Status <= 299 && (len(resp.Body) == 0 || resp.Header.Get("Location") != "") {
		return restResult(t, resp)
	}
	body := resp.Body
	if resp.Status < 200 || resp.Status > 299 {
		text := strings.TrimRight(string(body), " \t\r\n")
		if text == "" {
			text = http.StatusText(resp.Status)
		}
		effect := toolset.EffectUnknown
		if resp.Status < 500 || t.ReadOnly() {
			effect = toolset.EffectNotApplied
		}
		return t.Fail(
			fmt.Sprintf("HTTP %d from %s: %s", resp.Status, t.Request, text),
			toolset.ErrorInfo{Code: toolset.StatusCode(resp.Status), Message: toolset.BodyMessage(text), Status: resp.Status, Effect: effect})
	}
	mediaType := resp.Header.Get("Content-Type")
	if mediaType != "application/json" { // what mime.ParseMediaType returns it as
		mediaType, _, _ = mime.ParseMediaType(mediaType)
	}
	valid := false // known to be valid JSON
	if mediaType == "" {
		if valid = json.Valid(body); !valid {
			// What an HTTP client would be told: net/http sniffs the type
			// of a response that sets none.
			mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
		}
	}
	switch {
	case mediaType == ContentMediaType:
		return contentResult(t, body, resp.Status)
	case strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml":
		return imageResult(t, mediaType, body, resp.Status)
	case strings.HasPrefix(mediaType, "audio/"):
		return audioResult(t, mediaType, body, resp.Status)
	case valid || isJSONType(mediaType):
		return jsonResult(body, valid)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
}

func isJSONType(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// jsonResult: an object becomes structuredContent plus the same JSON as
// text, compact; any other JSON is text, compact; a body that is not JSON
// (valid false: not checked yet) is text as it stands. A body that is
// compact already (what json.Marshal writes) is used as it stands, not
// copied.
func jsonResult(body []byte, valid bool) *mcp.CallToolResult {
	compact := body
	if !valid && !json.Valid(body) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	}
	if !isCompact(body) {
		var buf bytes.Buffer
		json.Compact(&buf, body) // valid: cannot fail
		compact = buf.Bytes()
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(compact)}}}
	if compact[0] == '{' {
		res.StructuredContent = json.RawMessage(compact)
	}
	return res
}

// isCompact reports whether valid JSON has no whitespace outside its
// strings: whether json.Compact would leave it as it is.
func isCompact(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = wire.SkipString(data, i) - 1
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
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

func audioResult(t *toolset.Tool, mediaType string, body []byte, status int) *mcp.CallToolResult {
	if why := checkAudio(mediaType, body); why != "" {
		return t.Fail(
			fmt.Sprintf("Response from %s is not valid %s audio: %s.", t.Request, mediaType, why),
			toolset.ErrorInfo{Code: toolset.CodeBadResponse, Message: why, Status: status, Effect: toolset.EffectUnknown})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: body, MIMEType: mediaType}}}
}

// checkAudio says why data is not audio of type mediaType, or returns ""
// when it is, as far as its leading bytes tell: mcpdoor checks the formats
// of audioMagic, and that other audio is not empty.
func checkAudio(mediaType string, data []byte) (why string) {
	magic, known := audioMagic[mediaType]
	ok := len(data) > 0 && !known
	for _, m := range magic {
		ok = ok || bytes.HasPrefix(data, m)
	}
	switch {
	case ok:
		return ""
	case len(data) == 0:
		return "the response is empty"
	}
	return "the data does not start like " + mediaType
}
