package autoexpose

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/kitlink"
)

// Package autoexposetest checks a server's two doors against each other with
// the Door's own result mapping, without it being exported.
func init() {
	kitlink.Of = func(v any) (kitlink.Door, bool) {
		d, ok := v.(*Door)
		if !ok || !d.serving() {
			return kitlink.Door{}, false
		}
		k := kitlink.Door{Path: d.path, Sessions: d.calls.sessions, Result: d.resultOf}
		if c := d.calls.contract; c != nil {
			k.Rollout, k.TokenHeader = true, c.TokenHeader()
		}
		return k, true
	}
}

// resultOf is the result a call of tool gets when its route answers status,
// header and body: what result.go makes of the response, after the
// mcp.max_body_bytes cut that dispatch applies.
func (d *Door) resultOf(tool string, status int, header http.Header, body []byte) (*mcp.CallToolResult, bool) {
	t, ok := d.tools[tool]
	if !ok {
		return nil, false
	}
	resp := &dispatch.Response{Status: status, Header: header, Body: body}
	if int64(len(body)) > d.calls.maxBody {
		resp.Body, resp.Truncated = body[:d.calls.maxBody], true
	}
	return t.result(resp), true
}
