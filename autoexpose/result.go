package autoexpose

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/call"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// ContentMediaType is the media type of a route response that spells out
// its MCP tool result, for a handler whose answer is more than one block:
//
//	w.Header().Set("Content-Type", autoexpose.ContentMediaType)
//	json.NewEncoder(w).Encode(map[string]any{
//		"content": []mcp.Content{
//			&mcp.TextContent{Text: "The chart:"},
//			&mcp.ImageContent{MIMEType: "image/png", Data: png},
//		},
//		"structuredContent": summary, // optional
//	})
//
// The body is a JSON object with "content", an array of MCP content blocks
// (text, image, audio, resource, resource_link), and optionally
// "structuredContent", a JSON object. A 2xx response of this type becomes
// exactly that result, block for block, once every block is checked: an
// image's or audio's data (and an embedded resource's blob of an image or
// audio type) must be what its mimeType says, a resource's uri must be an
// absolute URI. A response that breaks the convention is an isError result
// with code bad_response that says what is wrong. The HTTP door answers the
// JSON itself, unchanged.
const ContentMediaType = call.ContentMediaType

// Result returns the tool result that a call of tool gets when the tool's
// route answers status, header and body: what a client of the MCP door is
// answered where a client of the HTTP door was answered that, by the rules
// of the package documentation ("Results"), a body over mcp.max_body_bytes
// included. ok is false when the Door serves no tool of that name.
//
// It serves two needs: a server's test of what an agent is answered for a
// route's answer that a call does not provoke easily (a dependency down, a
// 409 on a race), without a client, a session or a token; and package
// autoexposetest's Parity, which checks the two doors against each other
// by it.
func (d *Door) Result(tool string, status int, header http.Header, body []byte) (res *mcp.CallToolResult, ok bool) {
	if !d.serving() {
		return nil, false
	}
	t, ok := d.tools[tool]
	if !ok {
		return nil, false
	}
	resp := &dispatch.Response{Status: status, Header: header, Body: body}
	if int64(len(body)) > d.calls.maxBody {
		resp.Body, resp.Truncated = body[:d.calls.maxBody], true
	}
	return call.Result(t, resp), true
}
