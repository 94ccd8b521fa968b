package tests

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// TestMachineNames: a server listening on every address is reached over
// loopback under the machine's own names, as NeMo Gym's default_host (the
// machine's hostname, which Debian maps to 127.0.1.1) reaches it, and the
// MCP door answers them as it answers localhost; any other name on a
// loopback listener, a DNS-rebinding page's, still gets 403.
func TestMachineNames(t *testing.T) {
	t.Parallel()
	hostname, err := os.Hostname()
	if err != nil || hostname == "" || strings.EqualFold(hostname, "localhost") {
		t.Skipf("this machine has no hostname of its own (%q, %v)", hostname, err)
	}
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	const pong = `{"jsonrpc":"2.0","id":1,"result":{}}`
	refused := func(host string) string {
		return `forbidden: Host "` + host + `" is not allowed on a loopback listener (DNS rebinding protection; see mcp.allowed_hosts)` + "\n"
	}

	t.Run("hostname", func(t *testing.T) {
		// Linux routes all of 127/8 to loopback; Debian's hostname
		// address is 127.0.1.1.
		url, port := serveOn(t, "127.0.1.1")
		for _, c := range []struct {
			host   string
			status int
			body   string
		}{
			{hostname + ":" + port, 200, pong},
			{hostname, 200, pong},
			{strings.ToUpper(hostname) + ":" + port, 200, pong},
			{hostname + ".:" + port, 200, pong},
			{"rebind.attacker.example:" + port, 403, refused("rebind.attacker.example:" + port)},
			{hostname + ".attacker.example:" + port, 403, refused(hostname + ".attacker.example:" + port)},
		} {
			if status, body := postHost(t, url, c.host, ping); status != c.status || body != c.body {
				t.Errorf("Host %s: got %d %q\nwant %d %q", c.host, status, body, c.status, c.body)
			}
		}
	})

	t.Run("a name the hosts file maps to the listener's address", func(t *testing.T) {
		name, addr := hostsFileName(t, hostname)
		url, port := serveOn(t, addr.String())
		if status, body := postHost(t, url, name+":"+port, ping); status != 200 || body != pong {
			t.Errorf("Host %s on %s: got %d %q, want 200 %q", name, addr, status, body, pong)
		}
		// The same name, reaching another loopback address, is not that
		// address's name.
		other := "127.0.0.3"
		if addr.Is4() && addr.As4()[3] == 3 {
			other = "127.0.0.4"
		}
		url, port = serveOn(t, other)
		if status, body := postHost(t, url, name+":"+port, ping); status != 403 || body != refused(name+":"+port) {
			t.Errorf("Host %s on %s: got %d %q, want 403 %q", name, other, status, body, refused(name+":"+port))
		}
	})
}

// serveOn serves the fixture's door on addr, a loopback address, until the
// test ends, and returns its URL and port. It skips the test where the
// machine cannot listen there.
func serveOn(t *testing.T, addr string) (url, port string) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s, a loopback address: %v", addr, err)
	}
	h, door, _ := newFixture(t, fixtureConfig(t))
	t.Cleanup(func() { door.Close() })
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return srv.URL, port
}

// postHost posts body to url's /mcp with Host host, and returns the status
// and body the client gets.
func postHost(t *testing.T, url, host, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// hostsFileName returns a name, neither localhost nor the hostname, that
// the machine's hosts file maps to an IPv4 loopback address, and that
// address; it skips the test where there is none.
func hostsFileName(t *testing.T, hostname string) (string, netip.Addr) {
	t.Helper()
	f, err := os.Open("/etc/hosts")
	if err != nil {
		t.Skipf("this machine has no hosts file to name a loopback address: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		addr, err := netip.ParseAddr(fields[0])
		if err != nil || !addr.Is4() || !addr.IsLoopback() {
			continue
		}
		for _, name := range fields[1:] {
			if !strings.EqualFold(name, "localhost") && !strings.EqualFold(name, hostname) {
				return name, addr
			}
		}
	}
	t.Skip("the machine's hosts file maps no name but localhost and the hostname to an IPv4 loopback address")
	return "", netip.Addr{}
}
