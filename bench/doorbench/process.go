package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"
)

// endpoints is where the server process serves: its control endpoint and
// each built server's URL, by key. The server process prints it as one
// JSON line when it is ready.
type endpoints struct {
	Control string            `json:"control"`
	Servers map[string]string `json:"servers"`
}

// running is a set of servers listening on 127.0.0.1.
type running struct {
	endpoints
	https []*http.Server
}

// startServers builds every server of servers that exists, and the control
// endpoint, each on its own 127.0.0.1 port.
func startServers() (*running, error) {
	rs := &running{endpoints: endpoints{Servers: map[string]string{}}}
	listen := func(h http.Handler) (string, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		rs.https = append(rs.https, srv)
		go srv.Serve(ln)
		return "http://" + ln.Addr().String(), nil
	}
	var err error
	if rs.Control, err = listen((&control{}).handler()); err != nil {
		rs.close()
		return nil, err
	}
	for _, s := range servers {
		if s.build == nil {
			continue
		}
		h, err := s.build()
		if err != nil {
			rs.close()
			return nil, fmt.Errorf("building %s: %w", s.title, err)
		}
		base, err := listen(h)
		if err != nil {
			rs.close()
			return nil, err
		}
		rs.Servers[s.key] = base + s.path
	}
	return rs, nil
}

func (rs *running) close() {
	for _, srv := range rs.https {
		srv.Close()
	}
}

// serveChild is the server process: it starts the servers, prints their
// endpoints on out, and serves until in reaches its end (the driver closed
// it, or died).
func serveChild(in io.Reader, out io.Writer) error {
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the door's startup report
	rs, err := startServers()
	if err != nil {
		return err
	}
	defer rs.close()
	if err := json.NewEncoder(out).Encode(rs.endpoints); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}

// child is the server process, seen from the driver.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// spawn starts this program again as the server process and waits for its
// endpoints.
func spawn(ctx context.Context) (*child, endpoints, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, endpoints{}, err
	}
	cmd := exec.CommandContext(ctx, exe, "-serve")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, endpoints{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, endpoints{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, endpoints{}, err
	}
	c := &child{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	var eps endpoints
	if err == nil {
		err = json.Unmarshal(line, &eps)
	}
	if err != nil {
		c.stop()
		return nil, endpoints{}, fmt.Errorf("the server process did not start: %w", err)
	}
	return c, eps, nil
}

// stop ends the server process: closing its input is its signal to exit.
func (c *child) stop() error {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		return errors.Join(errors.New("the server process did not exit; killed"), <-done)
	}
}
