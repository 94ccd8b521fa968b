package detect

import "testing"

func TestParseMode(t *testing.T) {
	cases := []struct {
		in   string
		want Mode
		err  string
	}{
		{"", Auto, ""},
		{"auto", Auto, ""},
		{"AUTO", Auto, ""},
		{"direct", ForceDirect, ""},
		{"Direct", ForceDirect, ""},
		{"replay", ForceReplay, ""},
		{"REPLAY", ForceReplay, ""},
		{"strict", Strict, ""},
		{"sTrIcT", Strict, ""},
		{"fast", "", `dispatch "fast" is not one of auto, direct, replay, strict`},
		{" auto", "", `dispatch " auto" is not one of auto, direct, replay, strict`},
		{"Replays", "", `dispatch "Replays" is not one of auto, direct, replay, strict`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseMode(c.in)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			}
			if got != c.want || gotErr != c.err {
				t.Errorf("ParseMode(%q) = %q, %q; want %q, %q", c.in, got, gotErr, c.want, c.err)
			}
		})
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Direct: "direct", Replay: "replay", Refused: "refused", 0: "Verdict(0)", 7: "Verdict(7)"} {
		if got := v.String(); got != want {
			t.Errorf("Verdict(%d).String() = %q, want %q", int(v), got, want)
		}
	}
}
