package replay_test

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/replay"
)

func ExampleReplay_Dispatch() {
	r := chi.NewRouter()
	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
		args, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"asked":%s,"temp_c":21.5}`, args)
	})

	d := replay.NewReplay(r, 0)
	resp := d.Dispatch(context.Background(), &replay.Call{
		Path: "/get_weather",
		Body: []byte(`{"city":"Paris"}`), // the MCP client's arguments, unchanged
	})
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Println(string(resp.Body))
	// Output:
	// 200 application/json
	// {"asked":{"city":"Paris"},"temp_c":21.5}
}
