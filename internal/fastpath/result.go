package fastpath

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writeResult writes a tool call's result as the go-sdk encodes it in its
// response (mcp.CallToolResult's MarshalJSON, then a compact copy):
//
//   - a missing content list is an empty one;
//   - under the 2026-07-28 protocol (modern), the result names the server
//     in its _meta and ends with "resultType":"complete".
//
// The usual result — one text block and JSON structured content, as
// jsonResult makes it — is written piece by piece, the text and the
// structured content straight to the response, where CallToolResult's
// MarshalJSON would copy a large result several times over; any other
// result goes through MarshalJSON itself.
func (f *Path) writeResult(w *sseWriter, res *mcp.CallToolResult, modern bool) {
	if text, structured, ok := plainResult(res); ok {
		w.string("{")
		if modern {
			w.string(`"_meta":`)
			w.bytes(f.o.ServerInfo)
			w.string(",")
		}
		w.string(`"content":[{"type":"text","text":`)
		// json.Marshal's escaping, as TextContent's MarshalJSON writes it.
		if err := json.NewEncoder(w).Encode(text); err != nil {
			w.err = err
		}
		w.string("}]")
		if structured != nil {
			w.string(`,"structuredContent":`)
			writeHTMLEscaped(w, structured)
		}
		if modern {
			w.string(`,"resultType":"complete"`)
		}
		w.string("}")
		return
	}
	// What the go-sdk does to a tool's result before it writes it: under
	// 2026-07-28, the result type (input_required for a result that asks
	// the client questions, see input.go; else complete) and the server in
	// _meta; and a missing content list made empty, but in a result that
	// asks questions.
	inputRequired := modern && res.InputRequests != nil
	if res.Content == nil && !inputRequired {
		withContent := *res
		withContent.Content = []mcp.Content{}
		res = &withContent
	}
	var asks mcp.InputRequestMap
	if inputRequired {
		asks = res.InputRequests
		without := *res
		without.InputRequests = nil // written after the result type, below
		res = &without
	}
	if modern {
		meta := res.GetMeta()
		if meta == nil {
			meta = make(map[string]any, 1)
		}
		if _, ok := meta[mcp.MetaKeyServerInfo]; !ok {
			meta[mcp.MetaKeyServerInfo] = f.o.Impl
		}
		res.SetMeta(meta)
	}
	// MarshalJSON writes compact JSON, which the go-sdk's encoder copies as
	// it stands.
	result, err := res.MarshalJSON()
	if err != nil {
		w.err = err
		return
	}
	if modern {
		// MarshalJSON writes the result's own fields, then resultType, then
		// inputRequests.
		result = result[:len(result)-1]
		if !inputRequired {
			result = append(result, `,"resultType":"complete"}`...)
		} else {
			questions, err := json.Marshal(asks)
			if err != nil {
				w.err = err
				return
			}
			result = append(result, `,"resultType":"input_required","inputRequests":`...)
			result = append(append(result, questions...), '}')
		}
	}
	w.bytes(result)
}

// plainResult returns the text and the JSON structured content (nil when
// there is none) of a result that has only those, with nothing in _meta.
func plainResult(res *mcp.CallToolResult) (text string, structured json.RawMessage, ok bool) {
	if len(res.Content) != 1 || res.Meta != nil || res.IsError || res.RequestState != "" || res.InputRequests != nil {
		return "", nil, false
	}
	tc, isText := res.Content[0].(*mcp.TextContent)
	if !isText || tc.Meta != nil || tc.Annotations != nil {
		return "", nil, false
	}
	switch sc := res.StructuredContent.(type) {
	case nil:
		return tc.Text, nil, true
	case json.RawMessage:
		return tc.Text, sc, sc != nil
	}
	return "", nil, false
}

// writeHTMLEscaped writes compact JSON as encoding/json copies a
// json.RawMessage with HTML escaping on (json.Marshal's default): <, >, &,
// U+2028 and U+2029 escaped, everything else as it stands.
func writeHTMLEscaped(w *sseWriter, raw []byte) {
	start := 0
	for i := 0; i < len(raw); i++ {
		var esc string
		switch c := raw[i]; {
		case c == '<':
			esc = `\u003c`
		case c == '>':
			esc = `\u003e`
		case c == '&':
			esc = `\u0026`
		case c == 0xe2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2] == 0xa8:
			esc = `\u2028`
		case c == 0xe2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2] == 0xa9:
			esc = `\u2029`
		default:
			continue
		}
		w.bytes(raw[start:i])
		w.string(esc)
		if esc[2] == '2' {
			i += 2 // the three bytes of U+2028 or U+2029
		}
		start = i + 1
	}
	w.bytes(raw[start:])
}
