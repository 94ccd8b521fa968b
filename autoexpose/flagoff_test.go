package autoexpose_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// flagOffInfo is the line a server with expose_tools_over_mcp false logs,
// so that a user who left the opt-in out is told why there is no /mcp.
const flagOffInfo = `level=INFO msg="mcpdoor: expose_tools_over_mcp is false: not serving MCP; set it to true to serve the router's tools at /mcp"`

// TestFlagOffSaysSo: with expose_tools_over_mcp false, Install and Wrap
// log one INFO line saying nothing is served over MCP and how to turn it
// on, beside the WARN of a config that sets mcp settings anyway; and the
// server still serves its routes unchanged.
func TestFlagOffSaysSo(t *testing.T) {
	const warn = `level=WARN msg="mcpdoor: the config sets mcp settings, but expose_tools_over_mcp is not true, ` +
		`so nothing is served over MCP; set expose_tools_over_mcp: true to serve the tools"`
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"only a name", "name: weather\n", []string{flagOffInfo}},
		{"false, said outright", "name: weather\nexpose_tools_over_mcp: false\n", []string{flagOffInfo}},
		{"mcp settings too", "name: weather\nmcp:\n  stateful: true\n", []string{flagOffInfo, warn}},
	} {
		for _, entry := range []string{"Install", "Wrap"} {
			t.Run(tc.name+"/"+entry, func(t *testing.T) {
				var logs bytes.Buffer
				cfg, err := autoexpose.ParseConfig([]byte(tc.yaml))
				if err != nil {
					t.Fatal(err)
				}
				cfg.Logger = logTo(&logs)
				var door http.Handler
				if entry == "Install" {
					door, err = autoexpose.Install(router(weatherRoutes)(), cfg)
				} else {
					mux := http.NewServeMux()
					mux.HandleFunc("POST /get_weather", answer(`{"weather":"sunny"}`))
					door, err = autoexpose.Wrap(mux, cfg)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for line := range strings.Lines(logs.String()) {
					got = append(got, strings.TrimSuffix(line, "\n"))
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
				}
				srv := httptest.NewServer(door)
				defer srv.Close()
				resp, err := http.Post(srv.URL+"/get_weather", "application/json", strings.NewReader(`{}`))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(body) != `{"weather":"sunny"}` {
					t.Errorf("POST /get_weather: %d %q", resp.StatusCode, body)
				}
			})
		}
	}
}
