package autoexpose

import (
	"reflect"
	"runtime"

	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

// Generated records the facts that mcpdoor gen read from one package's
// handlers: the file it writes into the package calls it from init, and
// Install matches each route's handler to them by function identity (see
// the package documentation, "Generated facts"). facts is the generator's
// text and types the Go types it names by index. It only records: a file
// that cannot be read is reported by Install, as a warning.
func Generated(facts string, types ...reflect.Type) {
	_, file, _, _ := runtime.Caller(1)
	harvest.Register(file, facts, types...)
}
