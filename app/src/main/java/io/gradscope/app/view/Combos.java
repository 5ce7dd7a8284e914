package io.gradscope.app.view;

import javafx.scene.control.ComboBox;

/** Settings for combo boxes whose lists grow with the program (a node per output, a leaf per parameter). */
final class Combos {
    /** The key JavaFX's combo box skin reads: how many rows its width is measured from (all of them by default). */
    private static final String ROWS_TO_MEASURE = "comboBoxRowsToMeasureWidth";

    /** How many rows are measured: enough for the names' usual width. */
    static final int MEASURED_ROWS = 40;

    private Combos() {
    }

    /**
     * Measures {@code box}'s width from its first {@link #MEASURED_ROWS} rows. By default the skin makes
     * a cell for every item, with its CSS, each time the list changes: about half a second on the UI
     * thread for a list of 10,000 outputs, at every open of such a program, panel shown or not.
     */
    static <T> ComboBox<T> measureFirstRows(ComboBox<T> box) {
        box.getProperties().put(ROWS_TO_MEASURE, MEASURED_ROWS);
        return box;
    }

    /**
     * Shows {@code value} in {@code box}, also when it is already the box's value: when the list is
     * emptied and refilled (a re-run), the skin blanks its button but keeps the value, so setting an
     * equal value again would change nothing on screen (a re-run's Jacobian tab showed "w.r.t." empty).
     */
    static <T> void show(ComboBox<T> box, T value) {
        if (value != null && value.equals(box.getValue())) {
            box.setValue(null);
        }
        box.setValue(value);
    }
}
