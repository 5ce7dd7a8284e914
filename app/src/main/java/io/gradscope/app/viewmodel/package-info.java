/**
 * The app's state without a window: read-only JavaFX properties changed by named commands (run,
 * step, jump, collapse, compare, sweep...), one view-model per panel, testable without a screen.
 * It may use service, layout, the engine and javafx.beans / javafx.collections; never view,
 * draw, export or javafx.scene (AppLayersTest).
 */
package io.gradscope.app.viewmodel;
