package detect

import (
	"fmt"
	"regexp"
)

// MaxNameLen is the longest tool name mcpdoor exposes.
const MaxNameLen = 64

var nameRule = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidName reports why name cannot be a tool name, or nil when it can: a
// name matches ^[A-Za-z0-9_-]+$ and has at most MaxNameLen characters. A name
// that passes can never address another route: it has no '/', '.', '%' or
// other separator.
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("tool name is empty")
	case !nameRule.MatchString(name):
		return fmt.Errorf("tool name %q does not match %s", name, nameRule)
	case len(name) > MaxNameLen: // after the rule, so bytes are characters
		return fmt.Errorf("tool name %q has %d characters, more than %d", name, len(name), MaxNameLen)
	}
	return nil
}
