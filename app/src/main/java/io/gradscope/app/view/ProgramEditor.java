package io.gradscope.app.view;

import io.gradscope.app.service.RunError;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.util.function.IntFunction;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import org.fxmisc.flowless.VirtualizedScrollPane;
import org.fxmisc.richtext.CodeArea;
import org.fxmisc.richtext.LineNumberFactory;

/**
 * The program's text with line numbers. A failed run marks its line and shows the same message as
 * the command line beneath; the text is never replaced.
 */
public final class ProgramEditor extends BorderPane {
    private final CodeArea area = new CodeArea();
    private final Label error = new Label();
    private int errorLine = -1;

    public ProgramEditor(SessionViewModel vm) {
        area.setId("editor");
        error.setId("editor-error");
        error.getStyleClass().add("error");
        error.setWrapText(true);
        error.setMaxWidth(Double.MAX_VALUE);
        error.setVisible(false);
        error.setManaged(false);
        IntFunction<Node> numbers = LineNumberFactory.get(area);
        area.setParagraphGraphicFactory(line -> {
            // Every line has the marker's slot, so marking one does not shift its text.
            Label mark = new Label(line == errorLine ? "●" : "");
            mark.getStyleClass().add("error-mark");
            mark.setMinWidth(10);
            mark.setPrefWidth(10);
            HBox box = new HBox(0, mark, numbers.apply(line));
            box.setAlignment(Pos.CENTER_LEFT);
            return box;
        });
        area.replaceText(vm.source().get());
        area.textProperty().addListener((o, a, b) -> {
            if (!b.equals(vm.source().get())) {
                vm.edit(b);
            }
        });
        vm.source().addListener((o, a, b) -> {
            if (!b.equals(area.getText())) {
                area.replaceText(b);
            }
        });
        vm.error().addListener((o, a, e) -> showError(e));
        setCenter(new VirtualizedScrollPane<>(area));
        setBottom(error);
    }

    /** Selects line {@code line} (1-based) and scrolls it into view; other numbers do nothing. */
    public void showLine(int line) {
        if (line < 1 || line > area.getParagraphs().size()) {
            return;
        }
        area.moveTo(line - 1, 0);
        area.selectLine();
        area.showParagraphInViewport(line - 1);
    }

    public CodeArea area() {
        return area;
    }

    public Label errorLabel() {
        return error;
    }

    /** The 1-based line marked as wrong, or 0. */
    public int errorLine() {
        return errorLine + 1;
    }

    private void showError(RunError e) {
        int previous = errorLine;
        if (previous >= 0 && previous < area.getParagraphs().size()) {
            area.setParagraphStyle(previous, java.util.List.of());
        }
        if (e == null) {
            errorLine = -1;
            error.setText("");
            error.setVisible(false);
            error.setManaged(false);
        } else {
            errorLine = e.line() - 1;
            error.setText(e.message());
            error.setVisible(true);
            error.setManaged(true);
            if (errorLine >= 0 && errorLine < area.getParagraphs().size()) {
                area.setParagraphStyle(errorLine, java.util.List.of("error-line"));
                area.showParagraphInViewport(errorLine);
                area.moveTo(errorLine, Math.max(0, Math.min(e.column() - 1, area.getParagraph(errorLine).length())));
            }
        }
        // Redraw the gutter so the marker follows the error.
        area.setParagraphGraphicFactory(area.getParagraphGraphicFactory());
    }
}
