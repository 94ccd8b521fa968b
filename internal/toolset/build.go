package toolset

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

// A Builder makes the tools of one Door from their specs.
type Builder struct {
	MaxBody  int64 // mcp.max_body_bytes
	Log      *slog.Logger
	Compiled *harvest.Resolver   // the input schemas, each resolved once
	Replayer dispatch.Dispatcher // what a replayed tool dispatches through
	Paths    dispatch.Router     // what a REST tool's path is checked against
	Routes   chi.Routes          // where a direct tool's endpoint is found
	// Fast reports whether the fast path may serve the calls of a tool of
	// input schema s (see Tool.Fast).
	Fast func(s *jsonschema.Schema) bool
	// ImageBudget is the bytes of pixels an image a route answers may
	// decode to (see Tool.ImageBudget).
	ImageBudget int64
}

// Tool makes the tool of spec tl: its path and request line, its schemas
// resolved and advertised, and its dispatcher; or the refusal that keeps
// it from being served.
func (tb *Builder) Tool(tl harvest.Spec) (*Tool, error) {
	rt := tl.Detected
	t := &Tool{Spec: tl, Path: "/" + tl.Name, Fast: tb.Fast(tl.InputSchema), ImageBudget: tb.ImageBudget}
	t.Request, t.SpanName = "POST "+t.Path, "tools/call "+t.Name
	if rest := tl.REST; rest != nil {
		t.Path, t.Request = rt.Pattern, rt.Method+" "+rt.Pattern
		if len(rest.Params) > 0 {
			var err error
			if rest.Template, err = dispatch.NewTemplate(rt.Method, rt.Pattern, tb.Paths); err != nil {
				return nil, fmt.Errorf("mcpdoor: %s: tool %s: %w", t.Route, t.Name, err)
			}
		}
	}
	tt, typed := rt.Endpoint.(harvest.Typed)
	if typed {
		info := tt.TypedInfo()
		info.Configure(tb.MaxBody, tb.Log)
		tb.Compiled.Know(info.Input, info.Resolved)
	}
	var err error
	if t.Resolved, err = tb.Compiled.Of(t.InputSchema); err != nil {
		return nil, fmt.Errorf("mcpdoor: %s: tool %s: input schema: %w", t.Route, t.Name, err)
	}
	if t.Input, err = harvest.Advertised(t.InputSchema); err == nil {
		t.Output, err = harvest.Advertised(t.OutputSchema)
	}
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: %s: tool %s: schema: %w", t.Route, t.Name, err)
	}
	switch {
	case tl.REST != nil && tl.REST.Split:
		t.Checked = tl.REST.BodySchema
	case typed && tt.TypedInfo().Resolved == t.Resolved:
		t.Checked = t.Resolved
	}
	if rt.Verdict == detect.Direct {
		t.Dispatcher = dispatch.NewDirect(rt.Endpoint, rt.Pattern, tb.Routes, tb.MaxBody)
	} else {
		t.Dispatcher = tb.Replayer
	}
	return t, nil
}

// Row is the startup report's row of tool t.
func (t *Tool) Row() detector.Row {
	reasons := t.Reasons
	if t.Note != "" {
		reasons = append(slices.Clip(reasons), t.Note)
	}
	row := detector.Row{Tool: t.Name, Route: t.Route, Verdict: t.Verdict.String(), Reason: strings.Join(reasons, "; "), Schema: t.SchemaSource}
	if t.REST != nil {
		row.Arguments = t.REST.Arguments
	}
	return row
}
