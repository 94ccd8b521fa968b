package autoexpose

import (
	"testing"
)

// BenchmarkStalledUploads: 8 clients each post /verify a body that
// declares 16 MiB, send a quarter of it and stall; reported is what the
// server holds while they stall (MiB-held, the live heap it grew by), how
// many were read at all (admitted; the others got 503 at once), and what
// it holds per byte the admitted ones sent (held/sent): with the default
// budget, and with one of 32 MiB.
func BenchmarkStalledUploads(b *testing.B) {
	if raceEnabled {
		b.Skip("heap figures under the race detector mean little")
	}
	const (
		clients  = 8
		declared = 16 << 20
		sent     = declared / 4
	)
	limits := "  rollout:\n    max_seed_bytes: 16777216\n    max_verify_bytes: 16777216\n"
	for _, c := range []struct{ name, yaml string }{
		{"default budget", limits},
		{"budget 32MiB", "  max_body_memory: 33554432\n" + limits},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			part := rowPart(sent)
			var held, admitted int64
			for range b.N {
				srv := rolloutDoor(b, c.yaml)
				before := heapInUse()
				for range clients {
					srv.stall("/verify", declared, part)
				}
				held += heapInUse() - before
				admitted += srv.admitted()
				srv.Close()
			}
			n := float64(b.N)
			b.ReportMetric(float64(held)/n/(1<<20), "MiB-held")
			b.ReportMetric(float64(admitted)/n, "admitted")
			if admitted > 0 {
				b.ReportMetric(float64(held)/float64(admitted*sent), "held/sent")
			}
		})
	}
}
