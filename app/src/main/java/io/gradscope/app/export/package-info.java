/**
 * The export commands: the graph as PNG or SVG, as drawn on screen, and the trace as JSON
 * (Exporter). It may use draw, viewmodel, layout and the engine; not view, service or
 * javafx.scene (AppLayersTest).
 */
package io.gradscope.app.export;
