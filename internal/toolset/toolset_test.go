package toolset

import "testing"

// TestMatches: an include or exclude entry matches a tool name in full, or
// the name's suffix after its last "__".
func TestMatches(t *testing.T) {
	cases := []struct {
		name  string
		entry string
		want  bool
	}{
		{"get_weather", "get_weather", true},
		{"get_weather", "weather", false},
		{"finance__get_quote", "get_quote", true},
		{"finance__get_quote", "finance__get_quote", true},
		{"finance__get_quote", "finance", false},
		{"a__b__c", "c", true},
		{"a__b__c", "b__c", false},
		{"get_quote", "finance__get_quote", false},
		{"get_weather", "", false},
	}
	for _, c := range cases {
		if got := Matches(c.name, c.entry); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.name, c.entry, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"get_weather", "forecast", "list_cities"}
	for name, want := range map[string]string{
		"get_wether":   "get_weather",
		"forcast":      "forecast",
		"list_city":    "list_cities",
		"delete_all":   "",
		"x":            "",
		"GET_WEATHER":  "",
		"get_weather2": "get_weather",
	} {
		if got := Nearest(name, known); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := quoted([]string{"a", "b", "c"}); got != `"a", "b" and "c"` {
		t.Errorf("quoted: %s", got)
	}
}
