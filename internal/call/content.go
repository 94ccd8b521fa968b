package call

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ContentMediaType is the media type of a route response that spells out
// its MCP tool result (autoexpose.ContentMediaType documents it).
const ContentMediaType = "application/vnd.mcpdoor.content+json"

// contentResult maps a response in the content convention (see
// ContentMediaType) to the result it spells out.
func contentResult(t *toolset.Tool, body []byte, status int) *mcp.CallToolResult {
	res, err := parseContent(body, t.ImageBudget)
	if err != nil {
		return t.Fail(
			fmt.Sprintf("Response from %s is not a valid %s result: %v.", t.Request, ContentMediaType, err),
			toolset.ErrorInfo{Code: toolset.CodeBadResponse, Message: err.Error(), Status: status, Effect: toolset.EffectUnknown})
	}
	return res
}

// parseContent reads a body in the content convention; its images may
// decode to budget bytes (see imageBudget).
func parseContent(body []byte, budget int64) (*mcp.CallToolResult, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, errors.New("the body is not a JSON object")
		}
		return nil, fmt.Errorf("the body is not JSON: %v", err)
	}
	if top == nil {
		return nil, errors.New("the body is not a JSON object")
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if k != "content" && k != "structuredContent" {
			return nil, fmt.Errorf(`unknown key %q (the body holds "content" and, optionally, "structuredContent")`, k)
		}
	}
	raw, ok := top["content"]
	if !ok {
		return nil, errors.New(`no "content" array`)
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil || blocks == nil {
		return nil, errors.New(`"content" is not an array`)
	}
	res := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(blocks))}
	for i, b := range blocks {
		c, err := parseBlock(b, budget)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		res.Content = append(res.Content, c)
	}
	if sc, ok := top["structuredContent"]; ok && !bytes.Equal(sc, []byte("null")) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, sc); err != nil || compact.Bytes()[0] != '{' {
			return nil, errors.New(`"structuredContent" is not a JSON object`)
		}
		res.StructuredContent = json.RawMessage(compact.Bytes())
	}
	return res, nil
}

// block is a content block on the wire: the union of the fields of the
// block types a tool result may hold.
type block struct {
	Type        string                `json:"type"`
	Text        *string               `json:"text"`
	Data        []byte                `json:"data"` // base64 on the wire
	MIMEType    string                `json:"mimeType"`
	Resource    *mcp.ResourceContents `json:"resource"`
	URI         string                `json:"uri"`
	Name        string                `json:"name"`
	Title       string                `json:"title"`
	Description string                `json:"description"`
	Size        *int64                `json:"size"`
	Icons       []mcp.Icon            `json:"icons"`
	Meta        mcp.Meta              `json:"_meta"`
	Annotations *mcp.Annotations      `json:"annotations"`
}

// parseBlock reads and checks one content block.
func parseBlock(raw json.RawMessage, budget int64) (mcp.Content, error) {
	var b block
	if err := json.Unmarshal(raw, &b); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "" {
			return nil, errors.New("the block is not a JSON object")
		}
		if strings.HasPrefix(err.Error(), "illegal base64") {
			return nil, err
		}
		return nil, fmt.Errorf("the block does not decode: %v", err)
	}
	switch b.Type {
	case "text":
		if b.Text == nil {
			return nil, errors.New(`a text block needs "text"`)
		}
		return &mcp.TextContent{Text: *b.Text, Meta: b.Meta, Annotations: b.Annotations}, nil
	case "image", "audio":
		if b.MIMEType == "" {
			return nil, fmt.Errorf(`an %s block needs "mimeType"`, b.Type)
		}
		if len(b.Data) == 0 {
			return nil, fmt.Errorf(`an %s block needs "data"`, b.Type)
		}
		if b.Type == "image" {
			if why := checkImage(b.MIMEType, b.Data, budget); why != "" {
				return nil, fmt.Errorf("the image is not %s: %s", b.MIMEType, why)
			}
			return &mcp.ImageContent{Data: b.Data, MIMEType: b.MIMEType, Meta: b.Meta, Annotations: b.Annotations}, nil
		}
		if why := checkAudio(b.MIMEType, b.Data); why != "" {
			return nil, fmt.Errorf("the audio is not %s: %s", b.MIMEType, why)
		}
		return &mcp.AudioContent{Data: b.Data, MIMEType: b.MIMEType, Meta: b.Meta, Annotations: b.Annotations}, nil
	case "resource":
		if err := checkResource(b.Resource, budget); err != nil {
			return nil, err
		}
		return &mcp.EmbeddedResource{Resource: b.Resource, Meta: b.Meta, Annotations: b.Annotations}, nil
	case "resource_link":
		if !absoluteURI(b.URI) {
			return nil, fmt.Errorf(`the resource_link's "uri" %q is not an absolute URI`, b.URI)
		}
		if b.Name == "" {
			return nil, errors.New(`a resource_link block needs "name"`)
		}
		return &mcp.ResourceLink{URI: b.URI, Name: b.Name, Title: b.Title, Description: b.Description,
			MIMEType: b.MIMEType, Size: b.Size, Icons: b.Icons, Meta: b.Meta, Annotations: b.Annotations}, nil
	case "":
		return nil, errors.New("the block has no type")
	}
	return nil, fmt.Errorf("type %q is not a tool result's (want text, image, audio, resource or resource_link)", b.Type)
}

// checkResource checks an embedded resource: an absolute URI, and text or a
// blob, which must be what its mimeType says when that is an image or audio
// type.
func checkResource(r *mcp.ResourceContents, budget int64) error {
	switch {
	case r == nil:
		return errors.New(`a resource block needs "resource"`)
	case !absoluteURI(r.URI):
		return fmt.Errorf(`the resource's "uri" %q is not an absolute URI`, r.URI)
	case r.Text != "" && len(r.Blob) > 0:
		return errors.New(`the resource has both "text" and "blob"`)
	case r.Text == "" && len(r.Blob) == 0:
		return errors.New(`the resource needs "text" or "blob"`)
	}
	why := ""
	switch mt := r.MIMEType; {
	case len(r.Blob) == 0:
	case strings.HasPrefix(mt, "image/") && mt != "image/svg+xml":
		why = checkImage(mt, r.Blob, budget)
	case strings.HasPrefix(mt, "audio/"):
		why = checkAudio(mt, r.Blob)
	}
	if why != "" {
		return fmt.Errorf("the resource's blob is not %s: %s", r.MIMEType, why)
	}
	return nil
}

func absoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}
