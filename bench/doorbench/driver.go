package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// driver sends the calls and reads the server process's control endpoint.
type driver struct {
	control string
	client  *http.Client
	calls   calls
}

func newDriver(control string, cs calls, maxConns int) *driver {
	return &driver{control: control, calls: cs, client: &http.Client{Transport: &http.Transport{
		MaxIdleConns:        maxConns * 16,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     time.Minute,
	}}}
}

func (d *driver) close() { d.client.CloseIdleConnections() }

// stats returns a snapshot of the server process.
func (d *driver) stats(ctx context.Context) (stats, error) {
	var s stats
	return s, d.controlCall(ctx, http.MethodGet, "/stats", &s)
}

// gc runs the server process's garbage collector, so that the batch that
// follows does not pay for the garbage of the one before.
func (d *driver) gc(ctx context.Context) error {
	return d.controlCall(ctx, http.MethodPost, "/gc", nil)
}

func (d *driver) controlCall(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, d.control+path, nil)
	if err != nil {
		return err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer drain(resp.Body)
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("control %s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// callOf returns the call contender c is sent with text as the argument.
func (d *driver) callOf(c contender, text string) call {
	return d.calls.withText(c.protocol, text)
}

// do sends cl to c and checks that the answer is the echo of text. With
// full false it checks only the status and that the answer holds the text,
// which is cheaper for the client when many share the machine's cores.
func (d *driver) do(ctx context.Context, c contender, cl call, text string, full bool) error {
	req, err := cl.request(ctx, c.url)
	if err != nil {
		return err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", c.label(), err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", c.label(), err)
	}
	if !full {
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), text) {
			return fmt.Errorf("%s: HTTP %d: %.200s", c.label(), resp.StatusCode, body)
		}
		return nil
	}
	got, err := toolResult(c.mcp, resp, body)
	if err != nil {
		return fmt.Errorf("%s: %w", c.label(), err)
	}
	if want := wantResult(c.mcp, text); got != want {
		return fmt.Errorf("%s: the echo tool answered otherwise: %s", c.label(), mismatch(got, want))
	}
	return nil
}

// batch measures one contender's batch: a garbage collection (not
// counted), a snapshot, run, a snapshot. The sample's cpu and alloc are
// per call.
func (d *driver) batch(ctx context.Context, calls int, run func() error) (sample, error) {
	if err := d.gc(ctx); err != nil {
		return sample{}, err
	}
	s0, err := d.stats(ctx)
	if err != nil {
		return sample{}, err
	}
	if err := run(); err != nil {
		return sample{}, err
	}
	s1, err := d.stats(ctx)
	if err != nil {
		return sample{}, err
	}
	n := float64(calls)
	return sample{cpu: float64(s1.CPUNanos-s0.CPUNanos) / n, alloc: float64(s1.TotalAlloc-s0.TotalAlloc) / n}, nil
}

// drain reads what is left of a body so that its connection can be reused.
func drain(r io.ReadCloser) {
	io.Copy(io.Discard, r)
	r.Close()
}
