package edge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"
)

// guard is the MCP endpoint's cross-origin and DNS-rebinding protection.
// It answers 403, with a one-line plain-text reason, to
//
//   - a request whose Host is not a loopback name (localhost, 127.0.0.0/8,
//     ::1), one of the machine's own names or one of mcp.allowed_hosts,
//     when it arrived on a loopback listener: a page whose name was rebound
//     to 127.0.0.1 reaches the server under its own name (the MCP spec's
//     DNS-rebinding warning);
//   - a request with an Origin header that is neither the request's own
//     origin nor one of mcp.allowed_origins: a browser page of another site
//     (the MCP spec's MUST for the Streamable HTTP transport).
//
// A request without an Origin header (any client that is not a browser) is
// not refused for lack of one. Only the MCP endpoint is guarded; the HTTP
// door's routes never see the guard.
//
// The requests that can change something (POST, DELETE) go through
// net/http's CrossOriginProtection, which also reads a browser's
// Sec-Fetch-Site header, with mcp.allowed_origins trusted; a GET (a session's
// stream of server messages) has its Origin compared here. mcpdoor owns the
// Host check instead of the go-sdk's localhost protection, which it
// disables, because the SDK's cannot be told about allowed_hosts.
//
// The machine's own names are its hostname (os.Hostname, read at Install)
// and the names its hosts file maps to the address the request arrived on
// (/etc/hosts: Debian maps the hostname to 127.0.1.1, and a server on
// 0.0.0.0 reached under that name sees 127.0.1.1 as its local address).
// Only the hosts file is read, never DNS: a rebinding attacker's name
// resolves to the listener's address through DNS, which is the attack, and
// no attacker writes the machine's hosts file. The Go resolver keeps the
// file in memory (it checks it for changes every few seconds), so the
// lookup, made only for a Host that is no loopback name and not allowed,
// costs no I/O per request.
type guard struct {
	cop     *http.CrossOriginProtection
	origins map[string]bool // normalized, from mcp.allowed_origins
	hosts   map[string]bool // lower case, from mcp.allowed_hosts
	self    string          // the hostname, as hostName gives it; "" when unknown
}

// hostsFile resolves names from the machine's hosts file alone: the Go
// resolver reads the file before it asks DNS, and it cannot reach DNS.
var hostsFile = &net.Resolver{
	PreferGo: true,
	Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errNoDNS
	},
}

var errNoDNS = errors.New("mcpdoor: the Host check reads the hosts file, not DNS")

// hostsFileTimeout bounds a hosts-file lookup, which reads memory: it only
// matters if the resolver ever blocks.
const hostsFileTimeout = 100 * time.Millisecond

// Guard is the step that serves a request behind the guard of
// allowedOrigins and allowedHosts (mcp.allowed_origins, mcp.allowed_hosts;
// ValidateGuard has checked them): 403 with a one-line reason to a
// foreign Origin or a rebinding Host.
func Guard(allowedOrigins, allowedHosts []string) func(http.Handler) http.Handler {
	return newGuard(allowedOrigins, allowedHosts).wrap
}

func newGuard(allowedOrigins, allowedHosts []string) *guard {
	g := &guard{cop: http.NewCrossOriginProtection(), origins: make(map[string]bool), hosts: make(map[string]bool)}
	for _, o := range allowedOrigins {
		g.origins[normalizeOrigin(o)] = true
		if normalizeOrigin(o) != "null" {
			// ValidateGuard has refused what AddTrustedOrigin would.
			g.cop.AddTrustedOrigin(strings.TrimSuffix(strings.TrimSpace(o), "/"))
		}
	}
	for _, h := range allowedHosts {
		g.hosts[strings.ToLower(h)] = true
	}
	if name, err := os.Hostname(); err == nil {
		g.self = hostName(name)
	}
	return g
}

// wrap serves next behind the guard.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := g.refuse(r); reason != "" {
			http.Error(w, reason, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse returns why r is refused, or "".
func (g *guard) refuse(r *http.Request) string {
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) {
		if !isLoopback(r.Host) && !g.hostAllowed(r.Host) && !g.machineName(r.Context(), r.Host, local) {
			return fmt.Sprintf("forbidden: Host %q is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)", r.Host)
		}
	}
	origin := r.Header.Get("Origin")
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if origin == "" || g.originAllowed(origin, r.Host) {
			return ""
		}
	default:
		if g.cop.Check(r) == nil || origin != "" && g.originAllowed(origin, r.Host) {
			return ""
		}
	}
	if origin == "" {
		return fmt.Sprintf("forbidden: a cross-site request (Sec-Fetch-Site: %s) from a browser page (see mcp.allowed_origins)", r.Header.Get("Sec-Fetch-Site"))
	}
	return fmt.Sprintf("forbidden: Origin %q is not this server's origin (see mcp.allowed_origins)", origin)
}

// hostAllowed reports whether host (a Host header) is in allowed_hosts: by
// its name alone, or with its port when the entry has one.
func (g *guard) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if g.hosts[host] {
		return true
	}
	name, _, err := net.SplitHostPort(host)
	return err == nil && g.hosts[name]
}

// machineName reports whether host (a Host header) is one of the machine's
// own names: its hostname, or a name its hosts file maps to local, the
// address the request arrived on (see guard).
func (g *guard) machineName(ctx context.Context, host string, local net.Addr) bool {
	name := hostName(host)
	if name == "" {
		return false
	}
	if name == g.self {
		return true
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return false // an address, not a name
	}
	at, err := netip.ParseAddrPort(local.String())
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, hostsFileTimeout)
	defer cancel()
	addrs, err := hostsFile.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if a.Unmap() == at.Addr().Unmap() {
			return true
		}
	}
	return false
}

// hostName returns the name of host (a Host header, or a hostname): without
// its port, in lower case and without a trailing dot; "" for an empty name.
func hostName(host string) string {
	if name, _, err := net.SplitHostPort(host); err == nil {
		host = name
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
}

// originAllowed reports whether origin is the request's own (an http or
// https origin whose host:port is the request's Host; the scheme is not
// compared, since a TLS-terminating proxy changes it and a rebinding or
// cross-site page cannot choose its host) or one of allowed_origins.
// "null", the origin of sandboxed and file: pages, is foreign unless
// listed.
func (g *guard) originAllowed(origin, host string) bool {
	if g.origins[normalizeOrigin(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && u.RawQuery == "" &&
		u.User == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// normalizeOrigin lower-cases an origin and drops a trailing slash, so that
// "HTTPS://App.example.com/" in the config matches what a browser sends.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// isLoopback reports whether addr (host, host:port, or [v6]:port) names
// the loopback interface: "localhost" or a loopback IP.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// ValidateGuard reports to bad the invalid entries of allowedOrigins and
// allowedHosts (mcp.allowed_origins, mcp.allowed_hosts).
func ValidateGuard(allowedOrigins, allowedHosts []string, bad func(key, format string, args ...any)) {
	for _, o := range allowedOrigins {
		if normalizeOrigin(o) == "null" {
			continue
		}
		u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(o), "/"))
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			bad("mcp.allowed_origins", "%q is not an origin; write scheme://host[:port], such as https://app.example.com", o)
		}
	}
	for _, h := range allowedHosts {
		if h == "" || strings.ContainsAny(h, "/ \t@") {
			bad("mcp.allowed_hosts", "%q is not a host name; write a name such as weather.internal, or name:port", h)
		}
	}
}
