package autoexposetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// diffJSON returns where two JSON values (as encoding/json decodes them into
// any) differ, one line per path: "- path: <want>" then "+ path: <got>",
// with "(none)" for a value that is missing. Objects are compared key by
// key and arrays element by element, so a change deep in a large value
// shows as that one change.
func diffJSON(path string, want, got any) []string {
	if reflect.DeepEqual(want, got) {
		return nil
	}
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		keys := slices.Collect(maps.Keys(wm))
		for k := range gm {
			if _, ok := wm[k]; !ok {
				keys = append(keys, k)
			}
		}
		keyOrder(path, keys)
		var lines []string
		for _, k := range keys {
			w, inW := wm[k]
			g, inG := gm[k]
			p := join(path, k)
			switch {
			case !inW:
				lines = append(lines, "- "+p+": (none)", "+ "+p+": "+show(g))
			case !inG:
				lines = append(lines, "- "+p+": "+show(w), "+ "+p+": (none)")
			default:
				lines = append(lines, diffJSON(p, w, g)...)
			}
		}
		return lines
	}
	wa, wok := want.([]any)
	ga, gok := got.([]any)
	if wok && gok && len(wa) == len(ga) {
		var lines []string
		for i := range wa {
			lines = append(lines, diffJSON(fmt.Sprintf("%s[%d]", path, i), wa[i], ga[i])...)
		}
		return lines
	}
	return []string{"- " + path + ": " + show(want), "+ " + path + ": " + show(got)}
}

// join appends an object key to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// show writes a JSON value on one line, with <, > and & as they are.
func show(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
