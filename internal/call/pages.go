package call

import (
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// A REST tool's route is left off MCP at Install when it can be told to
// be a browser's (internal/harvest browser.go); the rest is only known
// once the route answers.

// pageWarning warns, the first time a REST tool's route answers a page
// (2xx text/html), that the tool is a browser's: Install could not tell,
// and the model now reads a page meant for a person.
func (p *Pipeline) pageWarning(t *toolset.Tool, resp *dispatch.Response) {
	if t.REST == nil || resp.Status < 200 || resp.Status > 299 || !harvest.IsHTML(resp.Header.Get("Content-Type")) || !t.PageWarned.CompareAndSwap(false, true) {
		return
	}
	p.Log.Warn("mcpdoor: a tool's route answered a page (text/html), which is for a browser, not a model; if the route is a server-rendered UI's, keep it off MCP",
		"tool", t.Name, "route", t.Request, "fix", "mcp.exclude: ["+t.Name+"]")
}
