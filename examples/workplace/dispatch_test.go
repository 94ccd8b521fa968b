package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestToolsTable(t *testing.T) {
	specs := Tools()
	if len(specs) < 22 {
		t.Errorf("Tools() has %d tools, want at least 22", len(specs))
	}
	name := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	seen := map[string]bool{}
	for _, spec := range specs {
		if seen[spec.Name] {
			t.Errorf("tool %s listed twice", spec.Name)
		}
		seen[spec.Name] = true
		if !name.MatchString(spec.Name) {
			t.Errorf("tool name %q does not match %s", spec.Name, name)
		}
		if spec.Description == "" {
			t.Errorf("tool %s has no description", spec.Name)
		}
		if spec.Input == nil || spec.Input.Type != "object" {
			t.Errorf("tool %s: input schema type is not object: %v", spec.Name, spec.Input)
			continue
		}
		for prop, s := range spec.Input.Properties {
			if s.Description == "" {
				t.Errorf("tool %s: property %s has no description", spec.Name, prop)
			}
		}
	}
}

// TestDispatcherServesExactlyTools asks the catch-all route for every tool
// of Tools, and for names that are not tools.
func TestDispatcherServesExactlyTools(t *testing.T) {
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	for _, spec := range Tools() {
		// {} is valid or invalid arguments, but never an unknown tool.
		status, body := c.postRaw("/"+spec.Name, `{}`)
		if status == http.StatusNotFound && strings.Contains(body, "unknown tool") {
			t.Errorf("POST /%s: %d %s", spec.Name, status, body)
		}
	}
	if len(toolByName) != len(Tools()) {
		t.Errorf("the dispatcher knows %d tools, Tools lists %d", len(toolByName), len(Tools()))
	}
	for _, name := range []string{"email_archive", "Email_search", "emails"} {
		status, body := c.postRaw("/"+name, `{}`)
		want := `{"error":"unknown tool \"` + name + `\""}`
		if status != http.StatusNotFound || body != want {
			t.Errorf("POST /%s: %d %s, want 404 %s", name, status, body, want)
		}
	}
}

func TestToolsReturnsCopies(t *testing.T) {
	Tools()[0].Input.Properties["query"].Description = "changed"
	if got := Tools()[0].Input.Properties["query"].Description; got == "changed" {
		t.Error("changing a schema Tools returned changed the table")
	}
}

// TestDispatchArguments covers what the dispatcher does to a body before a
// tool sees it.
func TestDispatchArguments(t *testing.T) {
	tests := []struct {
		name, tool, body string
		status           int
		want             string // a prefix of the answer
	}{
		{"not JSON", "email_read", `{"id":`, 400, `{"error":"body is not JSON: `},
		{"trailing data", "email_read", `{"id":"E1001"} {}`, 400, `{"error":"body is not JSON: `},
		{"not an object", "email_read", `["E1001"]`, 422, `{"error":"arguments: validating root: type: [E1001] has type \"array\", want \"object\""}`},
		{"unknown field", "email_read", `{"id":"E1001","folder":"inbox"}`, 422, `{"error":"arguments: validating root: unexpected additional properties [\"folder\"]"}`},
		{"missing required", "email_mark_read", `{"id":"E1001"}`, 422, `{"error":"arguments: validating root: required: missing properties: [\"read\"]"}`},
		{"wrong type", "calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":"60"}`, 422, `{"error":"arguments: validating root: validating /properties/duration_minutes: type: 60 has type \"string\", want \"integer\""}`},
		{"not an integer", "calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":1.5}`, 422, `{"error":"arguments: `},
		{"empty body", "task_list", ``, 200, `{"tasks":[{"id":"T4001"`},
		{"null list", "email_send", `{"to":null,"subject":"Hi","body":"Hi"}`, 422, `{"error":"to: at least one recipient is required"}`},
	}
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := c.postRaw("/"+tt.tool, tt.body)
			if status != tt.status || !strings.HasPrefix(body, tt.want) {
				t.Errorf("POST /%s %s:\n got %d %s\nwant %d %s…", tt.tool, tt.body, status, body, tt.status, tt.want)
			}
		})
	}
}

func TestDispatchOnlyPost(t *testing.T) {
	srv, _ := serveEnv(t)
	resp, err := http.Get(srv.URL + "/email_search")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /email_search: %d, want 405", resp.StatusCode)
	}
}

// TestFailedWriteChangesNothing: a write that fails halfway through its
// arguments leaves the record whole.
func TestFailedWriteChangesNothing(t *testing.T) {
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	if status, body := c.postRaw("/calendar_update_event", `{"id":"EV2006","title":"Moved","end":"2025-03-14T09:00:00Z"}`); status != 422 {
		t.Fatalf("update: %d %s", status, body)
	}
	events := c.post("/calendar_list_events", map[string]any{"query": "Quarterly"})["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["end"] != "2025-03-14T11:00:00Z" {
		t.Errorf("after a failed update: %v", events)
	}
	if status, body := c.postRaw("/crm_update_customer", `{"id":"C3002","phone":"+1 555 0199","status":"Won"}`); status != 422 {
		t.Fatalf("update: %d %s", status, body)
	}
	if phone := c.post("/crm_get_customer", map[string]any{"id": "C3002"})["phone"]; phone != "+1 555 0102" {
		t.Errorf("after a failed update, phone = %v", phone)
	}
}
