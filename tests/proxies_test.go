package tests

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// The real components the replica tests put in front of the examples (and
// behind them): HAProxy and nginx from Debian's packages, and Redis. Each
// runs in the foreground, unprivileged, with its config and its files in
// the test's temporary directory, on free 127.0.0.1 ports, and is stopped
// by its PID when the test ends. A missing binary skips the test, unless
// MCPDOOR_REQUIRE_REPLICAS=1 (as .ci/run sets), which makes it a failure.
const requireReplicasEnv = "MCPDOOR_REQUIRE_REPLICAS"

// component returns the path of a component's binary, or skips (fails,
// under MCPDOOR_REQUIRE_REPLICAS=1) the test when it is not installed.
func component(t testing.TB, path, pkg string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("%s is not installed (Debian package %s): %v", path, pkg, err)
		if os.Getenv(requireReplicasEnv) == "1" {
			t.Fatalf("%s, and %s=1 requires it", msg, requireReplicasEnv)
		}
		t.Skip(msg + "; set " + requireReplicasEnv + "=1 to make this a failure")
	}
	return path
}

// A proc is a component's process, running until the test ends.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	mu   sync.Mutex
	log  strings.Builder // its standard output and error
}

// Log returns what the process has written so far.
func (p *proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// startProc starts bin with args in dir, and stops it (SIGTERM, then
// SIGKILL after 10 s) by its PID when the test ends, logging its output if
// the test failed.
func startProc(t testing.TB, name, dir, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Dir = dir
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.cmd.Stdout
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	go func() {
		<-read
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, p.Log())
		}
	})
	return p
}

// stop ends the process by its PID and waits for it.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// waitAccept waits until addr accepts a connection, for at most 30 s, or
// fails the test when p exits first.
func waitAccept(t testing.TB, p *proc, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before it accepted on %s:\n%s", p.name, addr, p.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not accept on %s after 30s: %v\n%s", p.name, addr, err, p.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The configs in docs/replicas listen on 127.0.0.1:8000 and name the
// replicas 127.0.0.1:8001, :8002 and :8003 (and Redis 127.0.0.1:6379): the
// tests run each file as it is, those ports replaced by free ones.
const (
	docListen     = "127.0.0.1:8000"
	docReplicaFmt = "127.0.0.1:800%d"
)

// proxyConfig returns docs/replicas/<file> with its listen address
// replaced by listen and its replicas' by replicas, in order.
func proxyConfig(t testing.TB, file, listen string, replicas []string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(nodeclient.RepoRoot(t), "docs", "replicas", file))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	if !strings.Contains(cfg, docListen) {
		t.Fatalf("docs/replicas/%s does not listen on %s", file, docListen)
	}
	cfg = strings.ReplaceAll(cfg, docListen, listen)
	for i := range 9 {
		doc := fmt.Sprintf(docReplicaFmt, i+1)
		switch {
		case i < len(replicas):
			if !strings.Contains(cfg, doc) {
				t.Fatalf("docs/replicas/%s names no replica %s", file, doc)
			}
			cfg = strings.ReplaceAll(cfg, doc, replicas[i])
		case strings.Contains(cfg, doc):
			t.Fatalf("docs/replicas/%s names replica %s; the test starts %d", file, doc, len(replicas))
		}
	}
	return cfg
}

// A realBalancer is a real proxy in front of the replicas.
type realBalancer struct {
	*proc
	url   string // its base URL
	marks int    // the requests logged has sent
}

// startHAProxy runs /usr/sbin/haproxy with docs/replicas/<file> in front
// of replicas (host:port each), and returns it once it accepts.
func startHAProxy(t testing.TB, file string, replicas []string) *realBalancer {
	t.Helper()
	bin := component(t, "/usr/sbin/haproxy", "haproxy")
	dir := t.TempDir()
	listen := "127.0.0.1:" + strconv.Itoa(mustFreePort(t))
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(proxyConfig(t, file, listen, replicas)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-q", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c refuses docs/replicas/%s: %v\n%s", file, err, out)
	}
	// -db: in the foreground, without forking.
	p := startProc(t, "haproxy", dir, bin, "-db", "-f", cfg)
	waitAccept(t, p, listen)
	return &realBalancer{proc: p, url: "http://" + listen}
}

// startNginx runs /usr/sbin/nginx with docs/replicas/<file> in front of
// replicas, with its prefix (pid, logs, temporary files) in the test's
// temporary directory, and returns it once it accepts.
func startNginx(t testing.TB, file string, replicas []string) *realBalancer {
	t.Helper()
	bin := component(t, "/usr/sbin/nginx", "nginx")
	dir := t.TempDir()
	listen := "127.0.0.1:" + strconv.Itoa(mustFreePort(t))
	cfg := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cfg, []byte(proxyConfig(t, file, listen, replicas)), 0o600); err != nil {
		t.Fatal(err)
	}
	// -p: the prefix its relative paths are under; -e: the error log
	// before the config is read; daemon off: in the foreground.
	global := "daemon off;"
	if os.Geteuid() == 0 {
		// As root (CI), nginx's workers would run as nobody, who cannot
		// reach the test's temporary directory.
		global += " user root;"
	}
	args := []string{"-p", dir, "-e", "stderr", "-c", cfg, "-g", global}
	if out, err := exec.Command(bin, append([]string{"-t", "-q"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t refuses docs/replicas/%s: %v\n%s", file, err, out)
	}
	p := startProc(t, "nginx", dir, bin, args...)
	waitAccept(t, p, listen)
	return &realBalancer{proc: p, url: "http://" + listen}
}

// mustFreePort returns a free port of 127.0.0.1 (freePort), or fails the
// test.
func mustFreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}
