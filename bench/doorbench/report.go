package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/mcpdoor/mcpdoor/internal/table"
)

// spread is a figure across rounds: its median, least and greatest value.
type spread struct{ median, min, max float64 }

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{median: m, min: s[0], max: s[len(s)-1]}
}

// format prints the spread as "median [min–max]", each value scaled by
// scale and printed with verb.
func (s spread) format(verb string, scale float64) string {
	f := func(x float64) string { return fmt.Sprintf(verb, x/scale) }
	return f(s.median) + " [" + f(s.min) + "–" + f(s.max) + "]"
}

// figure returns contender i's metric across rounds.
func figure(rounds [][]sample, i int, metric func(sample) float64) spread {
	var v []float64
	for _, r := range rounds {
		v = append(v, metric(r[i]))
	}
	return spreadOf(v)
}

// ratio returns, across rounds, contender i's metric divided by contender
// ref's in the same round: the two ran side by side, so the ratio is
// steadier than the ratio of their medians. ok is false without a ref.
func ratio(rounds [][]sample, i, ref int, metric func(sample) float64) (s spread, ok bool) {
	if ref < 0 {
		return spread{}, false
	}
	var v []float64
	for _, r := range rounds {
		if d := metric(r[ref]); d > 0 {
			v = append(v, metric(r[i])/d)
		}
	}
	return spreadOf(v), len(v) > 0
}

func cpuOf(s sample) float64   { return s.cpu }
func allocOf(s sample) float64 { return s.alloc }
func rateOf(s sample) float64  { return s.rate }
func peakOf(s sample) float64  { return s.peak }

// ratioCell prints a ratio's median, or nothing without one.
func ratioCell(rounds [][]sample, i, ref int, metric func(sample) float64) string {
	if s, ok := ratio(rounds, i, ref, metric); ok && ref != i {
		return fmt.Sprintf("%.2f×", s.median)
	}
	return ""
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// refs returns the indexes of contender i's references: the lean handler
// and mcp-go under the same protocol version (-1 for the raw floor, which
// has none).
func refs(cs []contender, i int) (lean, mcpgo int) {
	if cs[i].protocol == "" {
		return -1, -1
	}
	return find(cs, "lean", cs[i].protocol), find(cs, "mcp-go", cs[i].protocol)
}

// notBuilt is the row of a contender whose server does not exist yet, as
// wide as the table (n columns) so that the columns stay aligned.
func notBuilt(c contender, n int) []string {
	row := make([]string, n)
	row[0], row[1] = c.title, "not built yet"
	return row
}

// report prints the tables of res.
func report(w io.Writer, res *results, p plan) {
	cs := res.contenders
	fmt.Fprintf(w, "\n== Small echo {\"text\":%q}, one sequential client, %d rounds × %d calls per contender\n", smallText, p.rounds, p.calls)
	fmt.Fprintln(w, "   server CPU and bytes allocated per call: median [min–max] over rounds; ratios: median of the per-round ratios")
	rows := [][]string{{"contender", "protocol", "CPU µs/call", "KiB/call", "CPU ×lean", "CPU ×mcp-go", "alloc ×lean", "alloc ×mcp-go"}}
	for i, c := range cs {
		if !c.built() {
			rows = append(rows, notBuilt(c, len(rows[0])))
			continue
		}
		lean, mcpgo := refs(cs, i)
		rows = append(rows, []string{c.title, c.protocol,
			figure(res.small, i, cpuOf).format("%.0f", 1e3),
			figure(res.small, i, allocOf).format("%.1f", kib),
			ratioCell(res.small, i, lean, cpuOf), ratioCell(res.small, i, mcpgo, cpuOf),
			ratioCell(res.small, i, lean, allocOf), ratioCell(res.small, i, mcpgo, allocOf)})
	}
	table.Write(w, rows)

	fmt.Fprintf(w, "\n== %s text echoed back: one sequential client, %d rounds × %d calls; then %d concurrent clients × %d calls, heap in use sampled every %v\n",
		size(p.bigSize), p.bigRounds, p.bigCalls, p.peakClients, p.peakCalls, peakInterval)
	rows = [][]string{{"contender", "protocol", "MiB alloc/call", "CPU ms/call", "alloc ×lean", "CPU ×lean", fmt.Sprintf("peak heap MiB, %d clients", p.peakClients)}}
	for i, c := range cs {
		if !c.built() {
			rows = append(rows, notBuilt(c, len(rows[0])))
			continue
		}
		lean, _ := refs(cs, i)
		rows = append(rows, []string{c.title, c.protocol,
			figure(res.big, i, allocOf).format("%.1f", mib),
			figure(res.big, i, cpuOf).format("%.2f", 1e6),
			ratioCell(res.big, i, lean, allocOf), ratioCell(res.big, i, lean, cpuOf),
			figure(res.peak, i, peakOf).format("%.0f", mib)})
	}
	table.Write(w, rows)

	fmt.Fprintf(w, "\n== %d concurrent clients, %d rounds × %d calls per contender (the clients share the machine with the server)\n",
		p.loadClients, p.loadRounds, p.loadCalls)
	rows = [][]string{{"contender", "protocol", "calls/s", "CPU µs/call", "KiB/call", "calls/s ×fast path off"}}
	for i, c := range cs {
		if !c.built() {
			rows = append(rows, notBuilt(c, len(rows[0])))
			continue
		}
		rows = append(rows, []string{c.title, c.protocol,
			figure(res.load, i, rateOf).format("%.0f", 1),
			figure(res.load, i, cpuOf).format("%.0f", 1e3),
			figure(res.load, i, allocOf).format("%.1f", kib),
			ratioCell(res.load, i, find(cs, "mcpdoor", c.protocol), rateOf)})
	}
	table.Write(w, rows)

	goals(w, res, p)
}

// size names a number of bytes in MiB or KiB when it is a whole number of
// them.
func size(n int) string {
	switch {
	case n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	}
	return fmt.Sprintf("%d-byte", n)
}

// goals prints, for each mcpdoor variant, where it stands against the fast
// path's targets: server CPU per small call at most mcp-go's and at most
// 1.5× the lean handler's; at most 16 KiB allocated per small call; at most
// 1.5× the lean handler's allocation for the big (1 MiB) echo; and, for the
// fast path, at least twice the throughput with many clients of mcpdoor
// with the fast path off (mcpdoor before it).
func goals(w io.Writer, res *results, p plan) {
	cs := res.contenders
	fmt.Fprintln(w, "\n== Targets of the fast path (medians of the per-round ratios above)")
	rows := [][]string{{"contender", "protocol", "CPU ≤ mcp-go", "CPU ≤ 1.5× lean", "alloc ≤ 16 KiB", size(p.bigSize) + " alloc ≤ 1.5× lean", "calls/s ≥ 2× fast path off"}}
	verdict := func(ok bool, figure string) string {
		if ok {
			return "met (" + figure + ")"
		}
		return "not met (" + figure + ")"
	}
	ratioVerdict := func(rounds [][]sample, i, ref int, metric func(sample) float64, atMost float64) string {
		s, ok := ratio(rounds, i, ref, metric)
		if !ok {
			return ""
		}
		return verdict(s.median <= atMost, fmt.Sprintf("%.2f×", s.median))
	}
	for i, c := range cs {
		if !c.goals {
			continue
		}
		if !c.built() {
			rows = append(rows, notBuilt(c, len(rows[0])))
			continue
		}
		lean, mcpgo := refs(cs, i)
		alloc := figure(res.small, i, allocOf).median
		rate := ""
		if today := find(cs, "mcpdoor", c.protocol); today != i {
			s, ok := ratio(res.load, i, today, rateOf)
			if ok {
				rate = verdict(s.median >= 2, fmt.Sprintf("%.2f×", s.median))
			}
		}
		rows = append(rows, []string{c.title, c.protocol,
			ratioVerdict(res.small, i, mcpgo, cpuOf, 1),
			ratioVerdict(res.small, i, lean, cpuOf, 1.5),
			verdict(alloc <= 16*kib, fmt.Sprintf("%.1f KiB", alloc/kib)),
			ratioVerdict(res.big, i, lean, allocOf, 1.5),
			rate})
	}
	table.Write(w, rows)
}
