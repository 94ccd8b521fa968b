package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// A contender is one server under one protocol version.
type contender struct {
	server
	protocol string // "" for the raw floor
	url      string // "" when the server is not built yet
}

func (c contender) built() bool { return c.url != "" }

// contenders lists every server under every protocol version it is
// measured with, in the order of servers. A server the process does not
// run (not built yet) is listed once, to be printed as such.
func contenders(eps endpoints) []contender {
	var cs []contender
	for _, s := range servers {
		url := eps.Servers[s.key]
		switch {
		case url == "" || !s.mcp:
			cs = append(cs, contender{server: s, url: url})
		default:
			for _, v := range protocols {
				cs = append(cs, contender{server: s, protocol: v, url: url})
			}
		}
	}
	return cs
}

// find returns the index of the contender of server key under protocol v,
// or -1.
func find(cs []contender, key, v string) int {
	for i, c := range cs {
		if c.key == key && c.protocol == v && c.built() {
			return i
		}
	}
	return -1
}

// plan is how much a run does.
type plan struct {
	rounds, calls       int // small echo, one sequential client: rounds, and calls per contender per round
	bigRounds, bigCalls int // 1 MiB echo, one sequential client
	peakClients         int // 1 MiB echo, concurrent clients while the heap is sampled
	peakCalls           int // calls per client of those
	loadRounds          int // many concurrent clients: rounds
	loadClients         int // clients
	loadCalls           int // calls per contender per round, spread over the clients
	warmup              int // untimed small calls per contender before the first round
	bigSize             int // bytes of the big text
}

// A sample is one contender's figures in one round.
type sample struct {
	cpu   float64 // server CPU nanoseconds per call
	alloc float64 // bytes the server allocated per call
	rate  float64 // calls per second (concurrent scenarios)
	peak  float64 // largest heap in use seen, bytes (peak scenario)
}

// results holds every sample of a run, by round, then by contender (the
// index in contenders); unbuilt contenders' samples stay zero.
type results struct {
	contenders []contender
	small      [][]sample
	big        [][]sample
	peak       [][]sample
	load       [][]sample
}

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

// label names a contender in an error.
func (c contender) label() string {
	if c.protocol == "" {
		return c.title
	}
	return c.title + " " + c.protocol
}

// order returns the contenders' indexes for round r: the list rotated by r,
// so that no contender always follows the same one.
func order(n, r int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = (i + r) % n
	}
	return o
}

// batch measures one contender's batch: a garbage collection (not
// counted), a snapshot, run, a snapshot. The samples's cpu and alloc are
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

// sequential runs rounds of n calls per contender from one client, one
// call at a time, each answer checked in full.
func (d *driver) sequential(ctx context.Context, cs []contender, text string, rounds, n int) ([][]sample, error) {
	out := make([][]sample, rounds)
	for r := range rounds {
		out[r] = make([]sample, len(cs))
		for _, i := range order(len(cs), r) {
			c := cs[i]
			if !c.built() {
				continue
			}
			cl := d.callOf(c, text)
			s, err := d.batch(ctx, n, func() error {
				for range n {
					if err := d.do(ctx, c, cl, text, true); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			out[r][i] = s
		}
	}
	return out, nil
}

// concurrently has clients clients make calls calls between them, and
// returns the time it took.
func (d *driver) concurrently(ctx context.Context, c contender, text string, clients, calls int) (time.Duration, error) {
	cl := d.callOf(c, text)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	start := time.Now()
	for k := range clients {
		share := calls / clients
		if k < calls%clients {
			share++
		}
		wg.Go(func() {
			for j := range share {
				if err := d.do(ctx, c, cl, text, j == 0); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), first
}

// load runs rounds of calls per contender from clients concurrent clients.
func (d *driver) load(ctx context.Context, cs []contender, text string, rounds, clients, calls int) ([][]sample, error) {
	out := make([][]sample, rounds)
	for r := range rounds {
		out[r] = make([]sample, len(cs))
		for _, i := range order(len(cs), r) {
			c := cs[i]
			if !c.built() {
				continue
			}
			var took time.Duration
			s, err := d.batch(ctx, calls, func() (err error) {
				took, err = d.concurrently(ctx, c, text, clients, calls)
				return err
			})
			if err != nil {
				return nil, err
			}
			s.rate = float64(calls) / took.Seconds()
			out[r][i] = s
		}
	}
	return out, nil
}

// peak runs rounds of the big echo from clients concurrent clients, calls
// each, per contender, and samples the server's heap in use meanwhile.
func (d *driver) peak(ctx context.Context, cs []contender, text string, rounds, clients, calls int) ([][]sample, error) {
	out := make([][]sample, rounds)
	for r := range rounds {
		out[r] = make([]sample, len(cs))
		for _, i := range order(len(cs), r) {
			c := cs[i]
			if !c.built() {
				continue
			}
			if err := d.gc(ctx); err != nil {
				return nil, err
			}
			if err := d.controlCall(ctx, http.MethodPost, "/peak/start", nil); err != nil {
				return nil, err
			}
			_, err := d.concurrently(ctx, c, text, clients, clients*calls)
			var p struct {
				Peak uint64 `json:"peak_heap_inuse"`
			}
			if stopErr := d.controlCall(ctx, http.MethodPost, "/peak/stop", &p); err == nil {
				err = stopErr
			}
			if err != nil {
				return nil, err
			}
			out[r][i] = sample{peak: float64(p.Peak)}
		}
	}
	return out, nil
}

// smallText is the small echo's argument.
const smallText = "hello"

// bigText returns a text of n bytes that needs no escaping in JSON.
func bigText(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return string(b)
}

// check sends every built contender one small and one big call and
// compares each answer with the echo the tool must give.
func (d *driver) check(ctx context.Context, cs []contender, big string) error {
	for _, c := range cs {
		if !c.built() {
			continue
		}
		for _, text := range []string{smallText, big} {
			if err := d.do(ctx, c, d.callOf(c, text), text, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// run measures every scenario of p.
func (d *driver) run(ctx context.Context, cs []contender, p plan, progress func(string)) (*results, error) {
	res := &results{contenders: cs}
	big := bigText(p.bigSize)
	if err := d.check(ctx, cs, big); err != nil {
		return nil, err
	}
	for _, c := range cs {
		if !c.built() {
			continue
		}
		for range p.warmup {
			if err := d.do(ctx, c, d.callOf(c, smallText), smallText, false); err != nil {
				return nil, err
			}
		}
	}
	var err error
	progress("small echo")
	if res.small, err = d.sequential(ctx, cs, smallText, p.rounds, p.calls); err != nil {
		return nil, err
	}
	progress("1 MiB echo")
	if res.big, err = d.sequential(ctx, cs, big, p.bigRounds, p.bigCalls); err != nil {
		return nil, err
	}
	progress("1 MiB echo, peak heap")
	if res.peak, err = d.peak(ctx, cs, big, p.bigRounds, p.peakClients, p.peakCalls); err != nil {
		return nil, err
	}
	progress("concurrent clients")
	if res.load, err = d.load(ctx, cs, smallText, p.loadRounds, p.loadClients, p.loadCalls); err != nil {
		return nil, err
	}
	return res, nil
}

// drain reads what is left of a body so that its connection can be reused.
func drain(r io.ReadCloser) {
	io.Copy(io.Discard, r)
	r.Close()
}
