package dispatch_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/cputime"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// BenchmarkDispatchCPU compares BenchmarkDispatch's REST call to its
// tool-route call in CPU time, in batches taken in turn (tool, rest, rest,
// tool), so that a machine busy with other work slows neither more than
// the other: its rest/tool metric is the ratio.
func BenchmarkDispatchCPU(b *testing.B) {
	r := dispatchRouter()
	values := map[string]string{"city": "Paris", "day": "3"}
	query := url.Values{"units": {"metric"}}
	tool := benchCall()
	for _, tc := range []struct {
		name    string
		pattern string
		direct  bool
	}{
		{"rest/direct", restPattern, true},
		{"mounted/direct", mountedPattern, true},
		{"rest/replay", restPattern, false},
		{"mounted/replay", mountedPattern, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			toolD, restD := dispatch.Dispatcher(dispatch.NewReplay(r, 0)), dispatch.Dispatcher(dispatch.NewReplay(r, 0))
			if tc.direct {
				toolD = dispatch.NewDirect(endpointFor(b, r, http.MethodPost, "/get_weather"), "/get_weather", r, 0)
				restD = dispatch.NewDirect(endpointFor(b, r, http.MethodGet, tc.pattern), tc.pattern, r, 0)
			}
			tpl, err := dispatch.NewTemplate(http.MethodGet, tc.pattern, r)
			if err != nil {
				b.Fatal(err)
			}
			toolCall := func() { toolD.Dispatch(ctx, tool) }
			restCall := func() {
				c := *tool
				if tc.direct {
					if err := tpl.Fill(&c, values, query); err != nil {
						b.Fatal(err)
					}
				} else {
					uri, err := tpl.Expand(values, query)
					if err != nil {
						b.Fatal(err)
					}
					c.Method, c.Path = http.MethodGet, uri
				}
				restD.Dispatch(ctx, &c)
			}
			cputime.Pair(b, "tool", "rest", toolCall, restCall)
		})
	}
}
