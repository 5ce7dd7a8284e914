/**
 * Drawing the graph without a window: the scene in arrays (GraphScene), the painter, the pens
 * (screen, PNG, SVG), the camera and what Fit shows, and the colours. It may use viewmodel and
 * layout; no JavaFX scene classes (the screen's pen is view.FxPen). Its one use of the engine
 * (TraceGraph in GraphScene) is listed in the frozen rule of AppLayersTest.
 */
package io.gradscope.app.draw;
