/**
 * {@code gradscope bench-ui}: the window's open path timed (File → Open to the first frame of the
 * graph, with its parts and the window's start), and the layout, first draw and sweep step of a
 * generated chain. It may use the app (its window, views and view-models) and the engine.
 */
package io.gradscope.bench.ui;
