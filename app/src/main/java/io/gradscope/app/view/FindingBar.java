package io.gradscope.app.view;

import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.engine.diagnose.FiniteOrigin;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;

/**
 * The alert over the graph when a value or a gradient is not finite: where it was born, and
 * "Jump to origin", which selects the producer, shows its line in the editor and says why.
 */
public final class FindingBar extends HBox {
    private final Label text = new Label();
    private final Button jump = new Button("Jump to origin");
    private final DiagnosticsViewModel vm;
    /** Set when the only non-finite values are infinities the program absorbs: a note, not an alarm. */
    private static final javafx.css.PseudoClass ABSORBED = javafx.css.PseudoClass.getPseudoClass("absorbed");

    /** {@code showLine} selects a line of the run on screen in the editor (where it is in the text now). */
    public FindingBar(DiagnosticsViewModel vm, java.util.function.IntConsumer showLine) {
        super(8);
        setId("finding-bar");
        getStyleClass().add("finding-bar");
        setPadding(new Insets(4, 10, 4, 10));
        setAlignment(Pos.CENTER_LEFT);
        text.setId("finding-text");
        text.setWrapText(true);
        text.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(text, Priority.ALWAYS);
        jump.setId("jump-origin");
        jump.setOnAction(e -> vm.jumpToOrigin());
        getChildren().addAll(text, jump);
        this.vm = vm;
        vm.finite().addListener((o, a, r) -> show(r));
        vm.jump().addListener((o, a, j) -> {
            if (j != null) {
                showLine.accept(j.line());
                text.setText(text.getText().split("\n")[0] + "\nWhy: " + j.why());
            }
        });
        show(vm.finite().get());
    }

    private void show(FiniteOrigin.Report r) {
        boolean bad = r != null && r.origin() != null;
        setVisible(bad);
        setManaged(bad);
        pseudoClassStateChanged(ABSORBED, bad && r.absorbed());
        if (bad && r.absorbed()) {
            FiniteOrigin.Finding f = r.origin();
            text.setText("ℹ An infinity born at " + f.title() + (f.source().line() > 0 ? " (line " + f.source().line() + ")" : "")
                    + " is absorbed: the objective and every gradient are finite (as with a −Inf mask before a softmax).");
        } else if (bad) {
            FiniteOrigin.Finding f = r.origin();
            text.setText("⚠ A non-finite value was born in the " + (f.phase() == FiniteOrigin.Phase.FORWARD ? "forward" : "backward")
                    + " pass at " + f.title() + (f.title().equals(f.op()) ? "" : " = " + f.op())
                    + (f.source().line() > 0 ? " (line " + f.source().line() + ")" : "") + "; "
                    + vm.propagatorCount() + (vm.propagatorCount() == 1 ? " node passes" : " nodes pass") + " it on"
                    + (vm.harm() != null ? "; " + vm.harm() : "") + ".");
        }
    }

    public Label text() {
        return text;
    }

    public Button jumpButton() {
        return jump;
    }
}
