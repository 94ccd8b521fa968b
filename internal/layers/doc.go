// Package layers holds the test of the library's import direction:
// TestLayers reads the imports of every package of the module and fails
// on an import of a package of the same layer or a higher one, and on a
// package that the table of layers does not place; TestNoInit, that no
// package of the library declares an init function, so that what a
// package sets up, a reader finds where it is used. docs/design.md draws
// the same table.
package layers
