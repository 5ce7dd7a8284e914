/**
 * Where the graph's boxes go, with ELK and no JavaFX at all: containers for groups and repeated
 * blocks (RepeatFinder), sections and grids for long and wide graphs, label text and its width
 * from the font's advance widths. It may use the engine (trace, tensor) and no other app package
 * (AppLayersTest).
 */
package io.gradscope.app.layout;
