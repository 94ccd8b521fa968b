package detect

import (
	"strings"
	"testing"
)

// TestRESTName is the naming rule's table of examples; the report and the
// docs quote it.
func TestRESTName(t *testing.T) {
	for _, tc := range []struct{ method, pattern, want string }{
		// The notes API.
		{"GET", "/api/notes", "list_notes"},
		{"GET", "/api/notes/", "list_notes"},
		{"POST", "/api/notes", "create_note"},
		{"GET", "/api/notes/{id}", "get_note"},
		{"GET", "/api/notes/{id:[0-9]+}/", "get_note"},
		{"PUT", "/api/notes/{id}", "replace_note"},
		{"PATCH", "/api/notes/{id}", "update_note"},
		{"DELETE", "/api/notes/{id}", "delete_note"},
		{"POST", "/api/notes/{id}/archive", "archive_note"},
		{"POST", "/api/notes/search", "search_notes"},
		{"GET", "/api/notes/search", "get_notes_search"},
		{"DELETE", "/api/notes", "delete_notes"},
		{"POST", "/api/notes/{id}", "post_note"},
		// Nested resources.
		{"GET", "/api/users/{uid}/notes", "list_user_notes"},
		{"POST", "/api/users/{uid}/notes", "create_user_note"},
		{"GET", "/api/users/{uid}/notes/{id}", "get_user_note"},
		{"POST", "/api/notes/{id}/comments", "create_note_comment"},
		{"PUT", "/api/notes/{id}/tags", "replace_note_tags"},
		{"GET", "/api/admin/users/{user:[a-z]+}", "get_admin_user"},
		{"DELETE", "/api/admin/users/{user}/notes", "delete_admin_user_notes"},
		// Prefixes: api and versions go, unless nothing else is left.
		{"GET", "/v1/notes", "list_notes"},
		{"GET", "/api/v2beta1/notes", "list_notes"},
		{"GET", "/api", "get_api"},
		{"GET", "/api/v1", "get_api_v1"},
		{"GET", "/apis/notes", "list_apis_notes"},
		// POST /<name> keeps its tool-route name.
		{"POST", "/get_weather", "get_weather"},
		{"POST", "/get-weather", "get-weather"},
		{"POST", "/add_items", "add_items"},
		// ...unless it is a collection, which a POST adds to.
		{"POST", "/notes", "create_note"},
		{"POST", "/articles/", "create_article"},
		{"POST", "/Users", "create_user"},
		{"POST", "/api/login", "login"},
		{"POST", "/a.b", "a_b"},
		// Words: snake_case, plurals.
		{"GET", "/api/noteItems", "list_note_items"},
		{"GET", "/api/note-items/{id}", "get_note_item"},
		{"GET", "/api/APIKeys/{id}", "get_api_key"},
		{"GET", "/api/categories/{id}", "get_category"},
		{"GET", "/api/addresses/{id}", "get_address"},
		{"GET", "/api/boxes/{id}", "get_box"},
		{"GET", "/api/status", "get_status"},
		{"GET", "/api/stats", "get_stats"},
		// Words that end in s but are no plurals: stats/{range} is the
		// stats of a range, not one stat.
		{"GET", "/users/{id}/stats/{range}", "get_user_stats"},
		{"GET", "/news/{day}", "get_news"},
		{"GET", "/aliases/{alias}", "get_alias"},
		{"GET", "/statuses/{id}", "get_status"},
		{"GET", "/cases/{id}", "get_case"},
		{"GET", "/api/aliases", "list_aliases"},
		{"GET", "/api/canvas/{id}", "get_canvas"},
		{"GET", "/api/ids", "get_ids"},
		{"GET", "/caf\u00e9/menu", "get_caf_menu"},
		// No literal words: the parameters name the tool.
		{"GET", "/{slug}", "get_slug"},
		{"DELETE", "/{a}/{b}", "delete_a_b"},
		{"GET", "/", ""},
		{"GET", "/files/{name}.{ext}", "get_file"},
	} {
		t.Run(tc.method+" "+tc.pattern, func(t *testing.T) {
			got := RESTName(tc.method, tc.pattern)
			if got != tc.want {
				t.Errorf("RESTName(%s, %s) = %q, want %q", tc.method, tc.pattern, got, tc.want)
			}
			if got != "" && ValidName(got) != nil {
				t.Errorf("RESTName(%s, %s) = %q: %v", tc.method, tc.pattern, got, ValidName(got))
			}
		})
	}
}

// TestRESTNameLong: a name over MaxNameLen is cut and given a hash of its
// route, so two long routes that share their first words keep apart.
func TestRESTNameLong(t *testing.T) {
	long := "/api/" + strings.Repeat("very_long_segment/", 5)
	a := RESTName("GET", long+"alpha")
	b := RESTName("GET", long+"beta")
	for _, n := range []string{a, b} {
		if len(n) != MaxNameLen || ValidName(n) != nil {
			t.Errorf("name %q: %d characters, ValidName %v; want %d, nil", n, len(n), ValidName(n), MaxNameLen)
		}
	}
	if a == b {
		t.Errorf("two long routes share the name %q", a)
	}
	if again := RESTName("GET", long+"alpha"); again != a {
		t.Errorf("RESTName is not stable: %q then %q", a, again)
	}
	const want = "get_very_long_segment_very_long_segment_very_long_segment"
	if !strings.HasPrefix(a, want[:55]) {
		t.Errorf("name %q does not start with the route's words %q", a, want[:55])
	}
}
