// Package replay serves a request through a handler in process, as the
// server would serve it, and captures the answer: the status, the header
// as it stood when the status was written, and the body, up to a limit,
// with a panic recovered. It is how mcpdoor replays a tool call through the
// router; a test or a tool of its own can do the same:
//
//	req := httptest.NewRequest(http.MethodPost, "/get_weather", strings.NewReader(`{"city":"Paris"}`))
//	resp := replay.Do(router, req, 0)
//	fmt.Println(resp.Status, string(resp.Body))
package replay
