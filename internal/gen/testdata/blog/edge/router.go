package edge

//go:generate go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen -decoder example.com/blog/edge.bindForm:1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	legacy "example.com/blog/legacy.v1"
)

// NewRouter serves the edge handlers, each at a top-level POST route, so
// that the default tool-route reading makes each a tool.
func NewRouter() chi.Router {
	r := chi.NewRouter()
	r.Post("/create_thing", CreateThing)
	r.Post("/patch_thing", PatchThing)
	r.Post("/rename", Rename)
	r.Post("/find", Find)
	r.Post("/export", Export)
	r.Post("/either", Either)
	r.Post("/bulk", Bulk)
	r.Post("/strict", Strict)
	r.Post("/loose", Loose)
	r.Post("/taught", Taught)
	r.Method(http.MethodPost, "/report", Report{})
	r.Post("/add", (&Resource[Address]{}).Add)
	r.Post("/ping", Ping)
	r.Post("/legacy_stats", legacy.Stats)
	// Inline answers the time of day, in a closure of the router's.
	r.Post("/inline", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"time": "noon"})
	})
	// Two closures on one line, which the running program cannot tell
	// apart: gen leaves both undescribed, and says so.
	twins := []http.HandlerFunc{func(w http.ResponseWriter, r *http.Request) {}, func(w http.ResponseWriter, r *http.Request) {}}
	r.Post("/twin_a", twins[0])
	r.Post("/twin_b", twins[1])
	return r
}
