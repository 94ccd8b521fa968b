package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A redisServer is a real redis-server (Debian's package) that a test
// started on a free 127.0.0.1 port, with no persistence, and stops by its
// PID when the test ends.
type redisServer struct {
	Addr   string
	Client *redis.Client // closed when the test ends
	stop   func()
}

// Stop stops the server before the test ends, as a Redis that goes down
// would.
func (s *redisServer) Stop() { s.stop() }

// startRedis starts redis-server for the test, or skips the test when
// there is none on PATH, unless MCPDOOR_REQUIRE_REPLICAS=1, which makes a
// missing redis-server a failure (CI installs it).
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("MCPDOOR_REQUIRE_REPLICAS") == "1" {
			t.Fatalf("redis-server is not on PATH, and MCPDOOR_REQUIRE_REPLICAS=1 requires it (apt-get install redis-server)")
		}
		t.Skip("redis-server is not on PATH (apt-get install redis-server); set MCPDOOR_REQUIRE_REPLICAS=1 to fail instead")
	}
	// A port another process takes between its choice here and
	// redis-server's bind fails the start, which is tried again.
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s, err := runRedis(t, bin, port)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("starting redis-server: %v", lastErr)
	return nil
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runRedis starts redis-server on port and waits, up to 10 s, for it to
// answer PING.
func runRedis(t testing.TB, bin string, port int) (*redisServer, error) {
	t.Helper()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Kill() // by its PID: the process this test started
			<-exited
		})
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := client.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		select {
		case werr := <-exited:
			client.Close()
			return nil, fmt.Errorf("redis-server exited (%v): %s", werr, out.String())
		default:
		}
		if time.Now().After(deadline) {
			client.Close()
			stop()
			return nil, fmt.Errorf("redis-server on %s did not answer PING in 10s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		client.Close()
		stop()
	})
	return &redisServer{Addr: addr, Client: client, stop: stop}, nil
}

// lockedBuffer is a bytes.Buffer that a process's output and a test may use
// at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
