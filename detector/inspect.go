package detector

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
)

// Options configures Inspect. A nil *Options means the defaults: those of
// a config that sets none of the keys below.
type Options struct {
	// Dispatch is the dispatch policy, as mcp.dispatch sets it: auto,
	// direct, replay or strict. Default auto: direct where every middleware
	// is transparent, replay elsewhere.
	Dispatch string
	// Transparent lists further middleware function names, as the rows'
	// reasons print them, that a direct call may skip
	// (mcp.transparent_middleware).
	Transparent []string
	// REST reads routes of any method and depth as tools, with their path
	// parameters, as an empty mcp.rest block does: POST, PUT, PATCH and
	// DELETE routes. Default false: POST /<name> routes are tools.
	REST bool
}

// Inspect reads router r and reports what mcpdoor would make of each of
// its routes, one Row per POST route (with Options.REST, per route), tools
// by name first, then the other routes by pattern. As Install does, it
// reserves /mcp, and /seed_session and /verify when r serves both (NeMo
// Gym's rollout contract).
//
// The rows come with a non-nil error when the router as a whole cannot be
// served (it serves /mcp already, or has two catch-all routes), naming the
// routes and the fix; the error alone when opts is invalid.
func Inspect(r chi.Routes, opts *Options) ([]Row, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	mode, err := detect.ParseMode(o.Dispatch)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: detector.Options.Dispatch: %w", err)
	}
	do := &detect.Options{Mode: mode, Transparent: o.Transparent}
	if serves(r, rollout.SeedPath) && serves(r, rollout.VerifyPath) {
		do.Reserved = rollout.Reserved
	}
	if o.REST {
		do.REST = &detect.RESTOptions{}
	}
	rep, err := detect.Inspect(r, do)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: %w", err)
	}
	rows := make([]Row, len(rep.Routes))
	for i, rt := range rep.Routes {
		rows[i] = row(&rt)
	}
	return rows, errors.Join(rep.Problems...)
}

// row is rt as a Row.
func row(rt *detect.Route) Row {
	reason := strings.Join(rt.Reasons, "; ")
	if rt.Kind != detect.Tool {
		return Row{Route: rt.Method + " " + rt.Pattern, Verdict: rt.Kind.String(), Reason: reason}
	}
	if rt.Fix != "" {
		reason += "; fix: " + rt.Fix
	}
	return Row{Tool: rt.Name, Route: rt.Method + " " + rt.Pattern, Verdict: rt.Verdict.String(), Reason: reason}
}

// serves reports whether r routes POST path to a route of that very
// pattern.
func serves(r chi.Routes, path string) bool {
	return r.Find(chi.NewRouteContext(), http.MethodPost, path) == path
}
