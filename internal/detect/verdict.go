package detect

import (
	"fmt"
	"strings"
)

// A Verdict says how mcpdoor dispatches a tool route.
type Verdict int

const (
	// Direct: call the route's endpoint with a fabricated request; every
	// middleware on the route is transparent.
	Direct Verdict = iota + 1
	// Replay: serve a fresh request through the whole router, so every
	// middleware runs as it does for the HTTP door.
	Replay
	// Refused: the route cannot be a tool as it stands; Reasons say why.
	Refused
)

func (v Verdict) String() string {
	switch v {
	case Direct:
		return "direct"
	case Replay:
		return "replay"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// A Mode is the dispatch policy from the config's mcp.dispatch.
type Mode string

const (
	// Auto dispatches directly when every middleware is transparent and
	// replays otherwise. The default.
	Auto Mode = "auto"
	// ForceDirect dispatches every tool directly: the operator vouches that
	// no middleware needs to run.
	ForceDirect Mode = "direct"
	// ForceReplay replays every tool through the router.
	ForceReplay Mode = "replay"
	// Strict refuses any route that cannot go direct.
	Strict Mode = "strict"
)

// ParseMode returns the Mode named s ("" means Auto).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case "":
		return Auto, nil
	case Auto, ForceDirect, ForceReplay, Strict:
		return m, nil
	}
	return "", fmt.Errorf("dispatch %q is not one of auto, direct, replay, strict", s)
}

// judge sets rt's Verdict and Reasons from its middleware names and the
// opaque mounts above it (see mount.go).
func judge(rt *Route, mode Mode, transparent []string) {
	var opaque []string
	for _, name := range rt.MiddlewareNames {
		if !isTransparent(name, transparent) {
			opaque = append(opaque, name)
		}
	}
	switch {
	case mode == ForceReplay:
		rt.Verdict = Replay
		rt.Reasons = append(rt.Reasons, "dispatch: replay")
	case mode == ForceDirect:
		rt.Verdict = Direct
		skipped := opaque
		for _, m := range rt.mounts {
			skipped = append(skipped, "the ServeHTTP of "+m.typeName+" (mounted at "+m.path+")")
		}
		if len(skipped) > 0 {
			rt.Reasons = append(rt.Reasons, "dispatch: direct skips "+strings.Join(skipped, ", "))
		}
	case len(opaque) == 0 && len(rt.mounts) == 0:
		rt.Verdict = Direct
	case mode == Strict:
		rt.Verdict = Refused
		var fixes []string
		for _, m := range rt.mounts {
			rt.Reasons = append(rt.Reasons, m.reason()+", and a direct call would skip it")
		}
		if len(rt.mounts) > 0 {
			fixes = append(fixes, fmt.Sprintf("mount the *chi.Mux itself and make the check a middleware (r.Route(%q, func(r chi.Router) { r.Use(check); ... }))", rt.mounts[0].path))
		}
		for _, name := range opaque {
			rt.Reasons = append(rt.Reasons, fmt.Sprintf("middleware %s is not known to be transparent", name))
		}
		if len(opaque) > 0 {
			fixes = append(fixes, "declare the middleware in mcp.transparent_middleware if a request may skip it")
		}
		rt.Fix = strings.Join(fixes, "; ") + ", or set mcp.dispatch: auto to replay the route through the router"
	default:
		rt.Verdict = Replay
		for _, m := range rt.mounts {
			rt.Reasons = append(rt.Reasons, m.reason()+", so every call replays through the router")
		}
		for _, name := range opaque {
			rt.Reasons = append(rt.Reasons, "middleware "+name+" must run")
		}
	}
}
