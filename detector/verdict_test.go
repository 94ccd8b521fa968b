package detector

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

func TestVerdictText(t *testing.T) {
	for v, name := range map[Verdict]string{0: "", Direct: "direct", Replay: "replay", Refused: "refused"} {
		text, err := v.MarshalText()
		if err != nil || string(text) != name {
			t.Errorf("%v.MarshalText() = %q, %v; want %q", v, text, err, name)
		}
		var back Verdict
		if err := back.UnmarshalText(text); err != nil || back != v {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, v)
		}
	}
	if _, err := Verdict(7).MarshalText(); err == nil || err.Error() != "mcpdoor: Verdict(7) has no name" {
		t.Errorf("Verdict(7).MarshalText() error = %v", err)
	}
	var v Verdict
	if err := v.UnmarshalText([]byte("Direct")); err == nil || err.Error() != `mcpdoor: verdict "Direct" is not direct, replay or refused` {
		t.Errorf("UnmarshalText(Direct) error = %v", err)
	}
}
