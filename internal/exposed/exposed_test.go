package exposed

import "testing"

// TestResolve: every agent's form of a tool's name, for the workplace
// example's server and some of its tools, and names that only look like
// one.
func TestResolve(t *testing.T) {
	tools := NewTools([]string{"email_send", "email_read", "crm_add_note", "get-weather", "get_weather_now", "a-b", "a_b"})
	const server = "workplace_assistant"
	for _, tc := range []struct{ server, name, want string }{
		{server, "mcp__workplace_assistant__email_send", "email_send"}, // Claude Code
		{server, "mcp_workplace_assistant_email_send", "email_send"},   // Hermes
		{server, "workplace_assistant__email_send", "email_send"},      // OpenClaw
		{server, "email_send", "email_send"},                           // codex, simple_agent
		{server, "mcp_workplace_assistant_get_weather", "get-weather"}, // Hermes: san(tool)
		{server, "mcp__workplace_assistant__get_weather", "get-weather"},
		{"work-place", "mcp__work-place__email_read", "email_read"},
		{"work-place", "mcp_work_place_email_read", "email_read"},
		{"work-place", "mcp__work_place__email_read", "email_read"},
		{"work-place", "work-place__email_read", "email_read"},
		// Lookalikes.
		{server, "mcp__workplace_assistant__email_sent", "mcp__workplace_assistant__email_sent"},
		{server, "mcp__other__email_send", "mcp__other__email_send"},
		{server, "mcp_other_email_send", "mcp_other_email_send"},
		{server, "other__email_send", "other__email_send"},
		{server, "mcp__workplace_assistant__", "mcp__workplace_assistant__"},
		{server, "mcp_workplace_assistant_a_b", "a_b"},                     // the raw form first: a_b is a tool
		{"work-place", "work_place__email_read", "work_place__email_read"}, // OpenClaw keeps the server's name
		{"work-place", "mcp_work_place_a_b", "mcp_work_place_a_b"},         // two tools share the san
		{"", "mcp__x__email_send", "mcp__x__email_send"},
	} {
		got, ok := tools.Resolve(tc.name, tc.server)
		if got != tc.want || ok != (got != tc.name) {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tc.name, tc.server, got, ok, tc.want)
		}
	}
	// A name that is itself a tool is that tool.
	itself := NewTools([]string{"mcp__workplace_assistant__email_send", "email_send"})
	if got, ok := itself.Resolve("mcp__workplace_assistant__email_send", server); ok || got != "mcp__workplace_assistant__email_send" {
		t.Errorf("a tool's own name: %q, %v", got, ok)
	}
}

func TestSanitize(t *testing.T) {
	if got := Sanitize("a-b.c/d_é9"); got != "a_b_c_d__9" {
		t.Errorf("Sanitize = %q", got)
	}
}
