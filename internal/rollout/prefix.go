package rollout

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// NeMo Gym, with observability on, sends /seed_session and /verify under
// /ng-rollout/<rollout_id>/ (its ServerClient), and its servers strip the
// prefix before routing (RolloutContextMiddleware in
// nemo_gym/rollout_correlation.py). A server under the contract does the
// same, before any of its own code sees the path: see StripPrefix.
const (
	prefix = "/ng-rollout/"
	// idPattern is NeMo Gym's ROLLOUT_ID_PATTERN without its anchors:
	// letters, digits, dots, dashes and underscores, starting with a letter
	// or digit. NeMo Gym sets no length bound.
	idPattern = `[A-Za-z0-9][A-Za-z0-9._-]*`
	// PrefixRoute is the chi route of the prefix: only a valid id (or an
	// empty one, /ng-rollout//x) matches it, so any other path reaches
	// what it reached before. The id is its URL parameter rollout_id.
	PrefixRoute = prefix + "{rollout_id:" + idPattern + "}/*"
)

var idRule = regexp.MustCompile(`^` + idPattern + `$`)

type idKey struct{}

// ID returns the rollout id of a request: the token's rollout for a tool
// call with a token, else the id of the prefix the request came under, or
// "" (autoexpose.RolloutID documents what is authenticated and what is
// not).
func ID(r *http.Request) string { return FromContext(r.Context()) }

// FromContext returns the rollout id ctx carries, or "".
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// NewContext returns ctx carrying rollout id (ctx itself for "").
func NewContext(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, idKey{}, id)
}

// Logger returns log naming the rollout of ctx, if it has one.
func Logger(ctx context.Context, log *slog.Logger) *slog.Logger {
	if id := FromContext(ctx); id != "" {
		return log.With("rollout_id", id)
	}
	return log
}

func (c *Contract) logger(ctx context.Context) *slog.Logger { return Logger(ctx, c.log) }

// StripPrefix returns r as it would have arrived without NeMo Gym's prefix,
// carrying the rollout id, and true; or r and false when r's path has no
// valid prefix, or r already came under one (NeMo Gym strips one). Call it
// first, in front of every check the server makes on paths: a check in
// front of it sees the prefixed path, and a gate on /admin would let
// /ng-rollout/<id>/admin through.
func StripPrefix(r *http.Request) (*http.Request, bool) {
	if FromContext(r.Context()) != "" {
		return r, false
	}
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	id, rest, ok := splitRollout(path)
	if !ok {
		return r, false
	}
	return unprefixed(r, id, rest), true
}

// splitRollout splits a routing path /ng-rollout/<id>/<rest> into the id
// and /<rest>. ok is false for any other path, and for an id outside the
// pattern: an encoded slash ("a%2Fb") or an empty id is no id.
func splitRollout(path string) (id, rest string, ok bool) {
	after, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return "", "", false
	}
	id, rest, ok = strings.Cut(after, "/")
	if !ok || !idRule.MatchString(id) {
		return "", "", false
	}
	return id, "/" + rest, true
}

// unprefixed returns r as it would have arrived without the prefix of
// rollout id: its URL path, raw path and request URI lose
// "/ng-rollout/<id>", and its context carries the id. rest is the routing
// path after the prefix, which becomes the path when r's URL path does not
// start with the prefix (its raw path is no encoding of it).
func unprefixed(r *http.Request, id, rest string) *http.Request {
	p := prefix + id
	r2 := r.Clone(NewContext(r.Context(), id))
	r2.Pattern = ""
	u := r2.URL
	if after, ok := strings.CutPrefix(u.Path, p); ok && strings.HasPrefix(after, "/") {
		u.Path = after
		u.RawPath, _ = strings.CutPrefix(u.RawPath, p)
	} else if path, err := url.PathUnescape(rest); err == nil {
		u.Path, u.RawPath = path, ""
		if u.EscapedPath() != rest {
			u.RawPath = rest
		}
	}
	if after, ok := strings.CutPrefix(r2.RequestURI, p); ok && strings.HasPrefix(after, "/") {
		r2.RequestURI = after
	}
	return r2
}
