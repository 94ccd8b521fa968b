// Command doorbench measures what serving a tool over MCP costs a server:
// mcpdoor's auto-exposed chi route, with its fast path and without it (the
// go-sdk's stateless path), against the same echo tool written by hand with
// the go-sdk and with mark3labs/mcp-go, a lean hand-rolled JSON-RPC
// handler, and plain net/http JSON (the floor, not MCP).
//
//	go run ./bench/doorbench            # a quick run, under a minute
//	go run ./bench/doorbench -full      # a few minutes
//	scripts/bench.sh [-full] [flags]    # the same, naming the commit it measured
//
// (from the repository's root, whose go.work holds the bench module, or
// from bench/ as go run ./doorbench). The program has a module of its own,
// github.com/mcpdoor/mcpdoor/bench, so that what it measures against
// (mark3labs/mcp-go) stays out of the library's module graph.
//
// It measures the server alone. The servers run in a child process, each on
// its own 127.0.0.1 port, beside a control endpoint that reports the
// process's CPU time (getrusage) and bytes allocated
// (runtime.MemStats.TotalAlloc). This process is the client: it replays the
// exact request the go-sdk client sends for a stateless tools/call under
// each protocol version (recorded at start), so that the client's work is
// the same whichever server answers, and checks every answer.
//
// Round by round, for each contender in an order rotated every round, it
// collects the server's garbage (not counted), takes a snapshot, makes the
// calls and takes another; a batch pays for the garbage collections its own
// allocation triggers. It prints the median and the range over rounds of
// the server CPU and allocation per call, and ratios to the lean handler
// and to mcp-go taken round by round. Scenarios: a small echo from one
// sequential client; a 1 MiB text echoed back (allocation per call, and
// the peak heap in use under concurrent clients); and 64 concurrent clients
// (throughput).
//
// The machine's load average is printed at the start and the end: on a
// shared machine, compare runs only when it was low and alike.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "doorbench:", err)
		os.Exit(1)
	}
}

// quickPlan is a run that takes under a minute; fullPlan a few minutes.
var (
	quickPlan = plan{rounds: 5, calls: 200, bigRounds: 3, bigCalls: 4, peakClients: 8, peakCalls: 2,
		loadRounds: 2, loadClients: 64, loadCalls: 2000, warmup: 50, bigSize: 1 << 20}
	fullPlan = plan{rounds: 15, calls: 1000, bigRounds: 7, bigCalls: 10, peakClients: 8, peakCalls: 2,
		loadRounds: 5, loadClients: 64, loadCalls: 8000, warmup: 200, bigSize: 1 << 20}
)

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("doorbench", flag.ContinueOnError)
	p := plan{bigSize: quickPlan.bigSize}
	fs.IntVar(&p.rounds, "rounds", quickPlan.rounds, "small echo: rounds")
	fs.IntVar(&p.calls, "calls", quickPlan.calls, "small echo: calls per contender per round")
	fs.IntVar(&p.bigRounds, "big-rounds", quickPlan.bigRounds, "1 MiB echo: rounds (of the sequential and of the peak-heap runs)")
	fs.IntVar(&p.bigCalls, "big-calls", quickPlan.bigCalls, "1 MiB echo: calls per contender per round, one client")
	fs.IntVar(&p.peakClients, "peak-clients", quickPlan.peakClients, "1 MiB echo: concurrent clients while the heap is sampled")
	fs.IntVar(&p.peakCalls, "peak-calls", quickPlan.peakCalls, "1 MiB echo: calls per client while the heap is sampled")
	fs.IntVar(&p.loadRounds, "load-rounds", quickPlan.loadRounds, "concurrent clients: rounds")
	fs.IntVar(&p.loadClients, "clients", quickPlan.loadClients, "concurrent clients: how many")
	fs.IntVar(&p.loadCalls, "load-calls", quickPlan.loadCalls, "concurrent clients: calls per contender per round, all clients together")
	fs.IntVar(&p.warmup, "warmup", quickPlan.warmup, "untimed small calls per contender before the first round")
	commit := fs.String("commit", "", "the commit measured, as printed (scripts/bench.sh passes it); default: the one the build stamped")
	full := fs.Bool("full", false, "a full run: the larger default of every flag not given")
	serve := fs.Bool("serve", false, "be the server process (the driver starts it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *serve {
		return serveChild(os.Stdin, os.Stdout)
	}
	if *full {
		p = withDefaults(fs, p, fullPlan)
	}
	if err := p.validate(); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	wire, err := recordCalls(ctx)
	if err != nil {
		return err
	}
	ch, eps, err := spawn(ctx)
	if err != nil {
		return err
	}
	defer ch.stop()
	d := newDriver(eps.Control, wire, max(p.loadClients, p.peakClients))
	defer d.close()
	var srv info
	if err := d.controlCall(ctx, "GET", "/info", &srv); err != nil {
		return err
	}
	header(out, p, srv, *commit)
	res, err := d.run(ctx, contenders(eps), p, func(stage string) {
		fmt.Fprintf(os.Stderr, "doorbench: %s (%s)\n", stage, time.Since(start).Round(time.Second))
	})
	if err != nil {
		return err
	}
	report(out, res, p)
	fmt.Fprintf(out, "\nload average at end: %s; took %s\n", loadAverage(), time.Since(start).Round(time.Second))
	return nil
}

// withDefaults returns p with every flag the command line did not set
// taken from defaults.
func withDefaults(fs *flag.FlagSet, p, defaults plan) plan {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	pick := func(name string, v *int, d int) {
		if !set[name] {
			*v = d
		}
	}
	pick("rounds", &p.rounds, defaults.rounds)
	pick("calls", &p.calls, defaults.calls)
	pick("big-rounds", &p.bigRounds, defaults.bigRounds)
	pick("big-calls", &p.bigCalls, defaults.bigCalls)
	pick("peak-clients", &p.peakClients, defaults.peakClients)
	pick("peak-calls", &p.peakCalls, defaults.peakCalls)
	pick("load-rounds", &p.loadRounds, defaults.loadRounds)
	pick("clients", &p.loadClients, defaults.loadClients)
	pick("load-calls", &p.loadCalls, defaults.loadCalls)
	pick("warmup", &p.warmup, defaults.warmup)
	return p
}

func (p plan) validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"rounds", p.rounds}, {"calls", p.calls}, {"big-rounds", p.bigRounds}, {"big-calls", p.bigCalls},
		{"peak-clients", p.peakClients}, {"peak-calls", p.peakCalls}, {"load-rounds", p.loadRounds},
		{"clients", p.loadClients}, {"load-calls", p.loadCalls}, {"big text size", p.bigSize}} {
		if f.v < 1 {
			return fmt.Errorf("-%s must be at least 1, not %d", f.name, f.v)
		}
	}
	if p.warmup < 0 {
		return fmt.Errorf("-warmup must not be negative, not %d", p.warmup)
	}
	return nil
}

// header prints what a reader needs to weigh the figures: when, which
// code, which Go, how many cores, and how busy the machine was.
func header(w io.Writer, p plan, srv info, commit string) {
	if commit == "" {
		commit = revision()
	}
	fmt.Fprintln(w, "doorbench: server CPU and allocation per stateless tools/call of an echo tool over loopback")
	fmt.Fprintf(w, "date:         %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "commit:       %s\n", commit)
	fmt.Fprintf(w, "go:           %s %s/%s; CPUs %d; GOMAXPROCS server %d, client %d\n",
		srv.GoVersion, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), srv.GOMAXPROCS, runtime.GOMAXPROCS(0))
	if m := cpuModel(); m != "" {
		fmt.Fprintf(w, "cpu:          %s\n", m)
	}
	fmt.Fprintf(w, "load average: %s (1, 5, 15 min) at start\n", loadAverage())
	fmt.Fprintf(w, "plan:         small %d×%d; %s %d×%d, peak %d clients×%d; %d clients %d×%d; warm-up %d\n",
		p.rounds, p.calls, size(p.bigSize), p.bigRounds, p.bigCalls, p.peakClients, p.peakCalls, p.loadClients, p.loadRounds, p.loadCalls, p.warmup)
	fmt.Fprintln(w, "client:       the go-sdk client's own tools/call request for each protocol version, replayed byte for byte")
}

// revision returns the commit the binary was built from, when the build
// stamped it (go build in a checkout may; go run does not).
func revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (with uncommitted changes)"
			}
		}
	}
	if rev == "" {
		return "unknown (-commit names it; scripts/bench.sh passes it)"
	}
	return rev + modified
}

// loadAverage returns the machine's load averages over 1, 5 and 15
// minutes, where the system tells them.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unavailable"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unavailable"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel returns the processor's name, where the system tells it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
