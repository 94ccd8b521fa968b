// Package cputime measures CPU time, the process's own: the benchmarks
// that compare two ways of doing one job read it rather than the time on
// the clock, which grows while the process waits for a core on a machine
// busy with other work.
package cputime

import "testing"

// Pair runs a and c in turns, batch calls at a time (a, c, c, a, so that
// neither always goes first), until b.Loop ends, and reports the CPU time
// each took per call (aName-cpu-ns/call, cName-cpu-ns/call) and their
// ratio, cName/aName. It skips b where CPU time cannot be read.
func Pair(b *testing.B, aName, cName string, a, c func()) {
	if _, err := Now(); err != nil {
		b.Skip(err)
	}
	const batch = 32
	var aNs, cNs, calls int64
	run := func(f func(), ns *int64) {
		t0, _ := Now()
		for range batch {
			f()
		}
		t1, _ := Now()
		*ns += int64(t1 - t0)
	}
	b.ReportAllocs()
	for b.Loop() {
		run(a, &aNs)
		run(c, &cNs)
		run(c, &cNs)
		run(a, &aNs)
		calls += 2 * batch
	}
	b.ReportMetric(float64(aNs)/float64(calls), aName+"-cpu-ns/call")
	b.ReportMetric(float64(cNs)/float64(calls), cName+"-cpu-ns/call")
	b.ReportMetric(float64(cNs)/float64(aNs), cName+"/"+aName)
}
