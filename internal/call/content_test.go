package call

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzContent reads any body as a response in the content convention
// (ContentMediaType). For any body:
//   - nothing panics;
//   - a body it refuses gets a reason, and one it accepts becomes a result
//     that marshals, whose content blocks are as many as the body's and of
//     the types a tool result may hold.
func FuzzContent(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := parseContent(body, ImageBudget(4<<20)) // the default mcp.max_body_bytes
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: refused without a reason", body)
			}
			return
		}
		var top struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatalf("%q accepted, but does not decode: %v", body, err)
		}
		if len(res.Content) != len(top.Content) {
			t.Fatalf("%q: %d blocks, want %d", body, len(res.Content), len(top.Content))
		}
		for i, c := range res.Content {
			switch c.(type) {
			case *mcp.TextContent, *mcp.ImageContent, *mcp.AudioContent, *mcp.EmbeddedResource, *mcp.ResourceLink:
			default:
				t.Fatalf("%q: content[%d] is a %T", body, i, c)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("%q: the result does not marshal: %v", body, err)
		}
	})
}
