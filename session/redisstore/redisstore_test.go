package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
	"github.com/mcpdoor/mcpdoor/session/storetest"
)

// TestContract: the Redis store keeps session.Store's contract
// (storetest), against a real redis-server; its idle TTLs run on Redis's
// clock, so the suite waits for them. Every key it leaves has an expiry.
func TestContract(t *testing.T) {
	addr := startRedis(t)
	admin := redis.NewClient(&redis.Options{Addr: addr})
	defer admin.Close()
	n := 0
	storetest.Run(t, func(t *testing.T) session.Store {
		n++
		client := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { client.Close() })
		return redisstore.New(client, fmt.Sprint("contract", n))
	}, nil)
	ctx := context.Background()
	keys, err := admin.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if ttl, _ := admin.PTTL(ctx, k).Result(); ttl == -1 {
			t.Errorf("key %s has no expiry", k)
		}
	}
}

// startRedis starts a redis-server of its own on a free port of
// 127.0.0.1, ended with the test, and returns its address. Without
// redis-server on PATH the test is skipped, or fails under
// MCPDOOR_REQUIRE_REPLICAS=1.
func startRedis(t *testing.T) string {
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
		addr, err := runRedis(t, bin)
		if err == nil {
			return addr
		}
		lastErr = err
	}
	t.Fatalf("starting redis-server: %v", lastErr)
	return ""
}

// runRedis starts redis-server on a port free a moment ago, and waits, up
// to 10 s, for it to answer PING.
func runRedis(t *testing.T, bin string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Kill() // by its PID: the process this test started
		<-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer client.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := client.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		select {
		case werr := <-exited:
			return "", fmt.Errorf("redis-server exited: %v", werr)
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("redis-server on %s did not answer PING in 10s: %v", addr, err)
		}
	}
	t.Cleanup(stop)
	return addr, nil
}
