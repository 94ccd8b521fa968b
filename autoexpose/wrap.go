package autoexpose

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpdoor/mcpdoor/detector"
)

// Wrap serves any http.Handler — an http.ServeMux, a framework without a
// route table for Install to read — with the MCP door in front:
//
//	mux := http.NewServeMux()
//	mux.HandleFunc("POST /get_time", getTime)
//	cfg.Tools = func(_ []autoexpose.Tool, h *autoexpose.CatchAll) []autoexpose.Tool {
//		return []autoexpose.Tool{h.Tool("get_time", timeSchema, "The current time.")}
//	}
//	handler, err := autoexpose.Wrap(mux, cfg)
//
// The tools come from the OpenAPI document (Config.OpenAPI or mcp.openapi:
// each POST /<name> operation is a tool) and from cfg.Tools, whose catchall
// stands for h: each tool made with catchall.Tool is served as POST /<name>
// through h. Every call is
// replayed through h, so every check h makes still runs. The wrapper serves
// the MCP endpoint itself, adds the session token to POST /seed_session's
// response and normalizes POST /verify's names (for a rollout server, the
// default), and passes every other request to h unchanged.
//
// With expose_tools_over_mcp false, Wrap returns h itself. Otherwise the
// handler it returns is a *Door, for its report. Install and Wrap share the
// tool model, the result mapping and the gating of calls.
func Wrap(h http.Handler, cfg Config) (http.Handler, error) {
	if !cfg.ExposeToolsOverMCP {
		return h, nil
	}
	d, err := wrap(h, cfg)
	if err != nil {
		if degrade(&cfg, err) {
			return h, nil
		}
		return nil, err
	}
	d.announce()
	return d, nil
}

// wrap builds the Door that serves h.
func wrap(h http.Handler, cfg Config) (*Door, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := newDoor(&cfg)
	catchall := &CatchAll{wrapped: true, route: &detector.Route{
		Method:   http.MethodPost,
		Pattern:  "/{tool}",
		Kind:     detector.CatchAll,
		Param:    "tool",
		Endpoint: h,
		Verdict:  detector.Replay,
		Reasons:  []string{"a wrapped handler: every call replays through it"},
	}}
	if cfg.Outer != nil {
		catchall.route.Reasons = append(catchall.route.Reasons, outerReason)
	}
	doc, err := loadOpenAPI(&cfg)
	if err != nil {
		return nil, err
	}
	// The document's POST operations are the harvest: each served by h
	// at its path.
	harvested := documentTools(doc)
	for i := range harvested {
		t := &harvested[i]
		t.route = &detector.Route{
			Method:   http.MethodPost,
			Pattern:  "/" + t.Name,
			Kind:     detector.Tool,
			Name:     t.Name,
			Endpoint: h,
			Verdict:  detector.Replay,
		}
		if detector.ValidName(t.Name) != nil {
			t.route.Verdict = detector.Refused
			t.route.Reasons = []string{detector.ValidName(t.Name).Error()}
			t.route.Fix = fmt.Sprintf("mark the operation x-mcp-exclude: true, or drop the tool in the Tools hook (mcp.exclude: [%q])", t.Name)
		}
	}
	tools, errs := d.toolset(harvested, catchall, &cfg, doc)
	errs = append(errs, d.prepare(tools, replayTarget(&cfg, h), nil)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(tools) == 0 {
		d.log.Warn("mcpdoor: Wrap serves no tools; declare them in the Tools hook with catchall.Tool")
	}
	if err := d.finish(&cfg); err != nil {
		return nil, err
	}
	d.handler = d.endpoint(&cfg.MCP)
	d.inner = h
	if cfg.MCP.rollout() {
		d.seedHandler = d.seed(h)
		d.verifyHandler = d.verify(h)
	}
	return d, nil
}

// ServeHTTP serves the Door: its MCP endpoint at its path (and path + "/"),
// and, for a Door made by Wrap, every other request through the wrapped
// handler, /seed_session and /verify with their wraps. For a rollout server
// made by Wrap, /ng-rollout/<rollout_id>/<path> is served as /<path> (see
// RolloutID). A disabled Door answers 404.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.seedHandler != nil && rolloutIDFrom(r.Context()) == "" { // a rollout server made by Wrap; one prefix at most
		path := r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
		if id, rest, ok := splitRollout(path); ok {
			d.ServeHTTP(w, unprefixed(r, r.Context(), id, rest))
			return
		}
	}
	switch p := r.URL.Path; {
	case d.handler != nil && (p == d.path || p == d.path+"/"):
		d.handler.ServeHTTP(w, r)
	case d.inner == nil:
		http.NotFound(w, r)
	case r.Method == http.MethodPost && p == "/seed_session" && d.seedHandler != nil:
		d.seedHandler.ServeHTTP(w, r)
	case r.Method == http.MethodPost && p == "/verify" && d.verifyHandler != nil:
		d.verifyHandler.ServeHTTP(w, r)
	default:
		d.inner.ServeHTTP(w, r)
	}
}
