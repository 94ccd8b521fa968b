package call

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A route that answers a call 401 or 403 may be asking for a credential
// the client did send, in a header the door does not forward to routes
// (mcp.forward_headers: Authorization and User-Agent by default): an
// app's X-JWT, an API key. The result's text then names the headers the
// call carried that were not forwarded, and the key that forwards them,
// rather than leave the client and its operator with a bare
// "Unauthorized".

// transportHeaders are the headers of an MCP request that are the
// transport's, the door's or a proxy's, not a route's credentials: never
// named as not forwarded.
var transportHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true, "Cache-Control": true, "Connection": true,
	"Content-Length": true, "Content-Type": true, "Cookie": true, "Forwarded": true, "Host": true, "Keep-Alive": true,
	"Last-Event-Id": true, "Origin": true, "Pragma": true, "Proxy-Authorization": true, "Proxy-Connection": true,
	"Referer": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Via": true,
	"Traceparent": true, "Tracestate": true, "Baggage": true, "Sec-Fetch-Dest": true, "Sec-Fetch-Mode": true,
	"Sec-Fetch-Site": true, "X-Real-Ip": true, "X-Request-Id": true,
}

// maxNamedHeaders is how many headers a result names at most.
const maxNamedHeaders = 8

// unforwarded returns the names of the headers of an MCP request that
// the door did not forward to the route and that may be a route's: not
// the transport's (transportHeaders, Mcp-*, Sec-*, X-Forwarded-*), nor
// the session token's.
func (p *Pipeline) unforwarded(from http.Header) []string {
	var names []string
	for name := range from {
		canon := http.CanonicalHeaderKey(name)
		switch {
		case transportHeaders[canon], strings.HasPrefix(canon, "Mcp-"), strings.HasPrefix(canon, "Sec-Ch-"), strings.HasPrefix(canon, "X-Forwarded-"),
			canon == edge.RequestRefHeader, slices.Contains(p.Forward, canon), p.Contract != nil && strings.EqualFold(canon, p.Contract.TokenHeader()):
		default:
			names = append(names, canon)
		}
	}
	slices.Sort(names)
	return names
}

// withUnforwarded adds to the text of a 401 or 403 result the headers of
// the call the door did not forward.
func withUnforwarded(res *mcp.CallToolResult, names []string) {
	if len(names) == 0 || len(res.Content) == 0 {
		return
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return
	}
	more := ""
	if len(names) > maxNamedHeaders {
		names, more = names[:maxNamedHeaders], " and others"
	}
	which := "the header " + names[0]
	if len(names) > 1 {
		which = "the headers " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	it := "it"
	if len(names) > 1 || more != "" {
		it = "them"
	}
	c := *text
	c.Text += " (the call carried " + which + more + ", which the door does not forward to the route; to send " + it + ", list " + it + " in mcp.forward_headers)"
	res.Content = slices.Clone(res.Content)
	res.Content[0] = &c
}
