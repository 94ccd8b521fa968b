package verifywrap

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, server, want string
	}{
		{"mcp__weather__get_weather", "weather", "get_weather"},
		{"mcp__other__get_weather", "weather", "mcp__other__get_weather"},
		{"get_weather", "weather", "get_weather"},
		{"mcp__weather__ns__tool", "weather", "ns__tool"},
		{"mcp__weather__", "weather", "mcp__weather__"},
		{"mcp__weather", "weather", "mcp__weather"},
		{"mcp__weatherman__tool", "weather", "mcp__weatherman__tool"},
		{"MCP__weather__tool", "weather", "MCP__weather__tool"},
		{"mcp__my__srv__tool", "my__srv", "tool"},
		{"", "weather", ""},

		{"mcp__store__ns__tool", "", "ns__tool"},
		{"mcp__weather__get_weather", "", "get_weather"},
		{"mcp__dangling", "", "mcp__dangling"},
		{"mcp__x__", "", "mcp__x__"},
		{"mcp____tool", "", "mcp____tool"},
		{"mcp__", "", "mcp__"},
		{"get_weather", "", "get_weather"},
		{"", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.server+"/"+tt.name, func(t *testing.T) {
			if got := Normalize(tt.name, tt.server); got != tt.want {
				t.Errorf("Normalize(%q, %q) = %q, want %q", tt.name, tt.server, got, tt.want)
			}
		})
	}
}
