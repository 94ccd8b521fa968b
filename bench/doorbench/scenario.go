package main

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// plan is how much a run does.
type plan struct {
	rounds, calls       int // small echo, one sequential client: rounds, and calls per contender per round
	bigRounds, bigCalls int // big (1 MiB) echo, one sequential client
	peakClients         int // big echo, concurrent clients while the heap is sampled
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

// inRounds measures every built contender rounds times with measure,
// taking them in each round r in the order of cs rotated by r, so that no
// contender always follows the same one. The samples are by round, then
// by contender; an unbuilt contender's stay zero.
func inRounds(cs []contender, rounds int, measure func(c contender) (sample, error)) ([][]sample, error) {
	out := make([][]sample, rounds)
	for r := range rounds {
		out[r] = make([]sample, len(cs))
		for k := range cs {
			i := (k + r) % len(cs)
			if !cs[i].built() {
				continue
			}
			s, err := measure(cs[i])
			if err != nil {
				return nil, err
			}
			out[r][i] = s
		}
	}
	return out, nil
}

// sequential runs rounds of n calls per contender from one client, one
// call at a time, each answer checked in full.
func (d *driver) sequential(ctx context.Context, cs []contender, text string, rounds, n int) ([][]sample, error) {
	return inRounds(cs, rounds, func(c contender) (sample, error) {
		cl := d.callOf(c, text)
		return d.batch(ctx, n, func() error {
			for range n {
				if err := d.do(ctx, c, cl, text, true); err != nil {
					return err
				}
			}
			return nil
		})
	})
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
	return inRounds(cs, rounds, func(c contender) (sample, error) {
		var took time.Duration
		s, err := d.batch(ctx, calls, func() (err error) {
			took, err = d.concurrently(ctx, c, text, clients, calls)
			return err
		})
		s.rate = float64(calls) / took.Seconds()
		return s, err
	})
}

// peak runs rounds of the big echo from clients concurrent clients, calls
// each, per contender, and samples the server's heap in use meanwhile.
func (d *driver) peak(ctx context.Context, cs []contender, text string, rounds, clients, calls int) ([][]sample, error) {
	return inRounds(cs, rounds, func(c contender) (sample, error) {
		if err := d.gc(ctx); err != nil {
			return sample{}, err
		}
		if err := d.controlCall(ctx, http.MethodPost, "/peak/start", nil); err != nil {
			return sample{}, err
		}
		_, err := d.concurrently(ctx, c, text, clients, clients*calls)
		var p struct {
			Peak uint64 `json:"peak_heap_inuse"`
		}
		if stopErr := d.controlCall(ctx, http.MethodPost, "/peak/stop", &p); err == nil {
			err = stopErr
		}
		return sample{peak: float64(p.Peak)}, err
	})
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
	progress(size(p.bigSize) + " echo")
	if res.big, err = d.sequential(ctx, cs, big, p.bigRounds, p.bigCalls); err != nil {
		return nil, err
	}
	progress(size(p.bigSize) + " echo, peak heap")
	if res.peak, err = d.peak(ctx, cs, big, p.bigRounds, p.peakClients, p.peakCalls); err != nil {
		return nil, err
	}
	progress("concurrent clients")
	if res.load, err = d.load(ctx, cs, smallText, p.loadRounds, p.loadClients, p.loadCalls); err != nil {
		return nil, err
	}
	return res, nil
}
