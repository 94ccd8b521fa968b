// Package autoexposetest tests a server that mcpdoor serves over MCP, from the
// server's own tests, as package net/http/httptest tests an http.Handler: the
// server's real handler (the Door it serves, made by autoexpose.Install or
// autoexpose.Wrap) is served in process, with no listener, to an HTTP client
// and to the go-sdk's MCP client.
//
//	func TestWeather(t *testing.T) {
//		h, door, err := newServer(cfg) // the server's routes, then autoexpose.Install
//		if err != nil {
//			t.Fatal(err)
//		}
//		ts := autoexposetest.NewServer(t, h, door)
//
//		// Both doors answer alike.
//		ts.Parity(t,
//			autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":"Paris"}`},
//			autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":""}`},
//		)
//
//		// What each route became, pinned.
//		autoexposetest.Verdicts(t, door, map[string]string{
//			"get_weather":        "direct",
//			"POST /seed_session": "reserved",
//			"POST /verify":       "reserved",
//		})
//
//		// A rollout, as a harness runs it.
//		c := ts.Client()
//		c.Seed(t, `{}`)
//		cs := c.Connect(t, nil) // sends the seed's token
//		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
//		...
//		score := c.Verify(t, trajectory)
//	}
//
// The package promises:
//
//   - Parity compares the two doors by the Door's own mapping of a route's
//     response to a tool result, call by call, in fresh sessions, and reports
//     each difference by its JSON path.
//   - Verdicts pins the startup report: which routes became tools, and
//     whether each is called directly or replayed through the router.
//   - A Client is one user: its HTTP requests and its MCP sessions share its
//     cookie session; Seed, Connect and Verify are a harness's rollout.
//   - Nothing listens on a port, and every request a test started has ended
//     when the test ends.
package autoexposetest
