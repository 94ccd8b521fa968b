package autoexpose

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/token"
)

// admit checks a call's token — present, valid for this server, listing the
// tool — and returns the session the token names, or reports a
// tokenless call that may go on (mcp.require_token: false), or returns the
// isError result that refuses the call. The token is verified on every
// call, with no cache.
func (d *Door) admit(t *tool, header http.Header) (sid string, tokenless bool, refused *mcp.CallToolResult) {
	raw := header.Get(d.tokenHeader)
	if raw == "" {
		if d.requireToken {
			return "", false, t.fail(
				fmt.Sprintf("Missing %s for MCP tool call.", d.tokenHeader),
				ErrorInfo{Code: "missing_token", Message: "no session token", Status: http.StatusUnauthorized, Effect: EffectNotApplied})
		}
		return "", true, nil
	}
	p, err := d.codec.Verify(raw)
	if err != nil {
		msg := "the session token is not valid for this server"
		if errors.Is(err, token.ErrExpired) {
			msg = "the session token has expired"
		}
		return "", false, t.fail("Invalid MCP session token.",
			ErrorInfo{Code: "invalid_token", Message: msg, Status: http.StatusUnauthorized, Effect: EffectNotApplied})
	}
	if !p.Allows(t.Name) {
		return "", false, t.fail(fmt.Sprintf("Tool '%s' is not allowed for this session.", t.Name),
			ErrorInfo{Code: "tool_not_allowed", Message: "the session token does not list this tool", Status: http.StatusForbidden, Effect: EffectNotApplied})
	}
	return p.SID, false, nil
}

// listFor narrows a tools/list result to what a valid token with an
// allow-list may see. No token, or an invalid one, sees every tool.
func (d *Door) listFor(header http.Header, res *mcp.ListToolsResult) *mcp.ListToolsResult {
	raw := header.Get(d.tokenHeader)
	if raw == "" {
		return res
	}
	p, err := d.codec.Verify(raw)
	if err != nil || p.Tools == nil {
		return res
	}
	narrowed := *res
	narrowed.Tools = make([]*mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		if p.Allows(t.Name) {
			narrowed.Tools = append(narrowed.Tools, t)
		}
	}
	return &narrowed
}

// headerOf returns the HTTP header a request came with, or nil (stdio).
func headerOf(req mcp.Request) http.Header {
	if extra := req.GetExtra(); extra != nil {
		return extra.Header
	}
	return nil
}
