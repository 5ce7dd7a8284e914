package io.gradscope.app.view;

import io.gradscope.app.service.RunError;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import org.fxmisc.flowless.VirtualizedScrollPane;
import org.fxmisc.richtext.CodeArea;
import org.fxmisc.richtext.LineNumberFactory;
import org.fxmisc.richtext.model.PlainTextChange;

/**
 * The program's text with line numbers. A failed run marks its line and shows the same message as
 * the command line beneath; the text is never replaced. While stepping, the line of the node being
 * inspected is highlighted, as a debugger highlights the current line. Opening a program is not an
 * edit: undo never goes back past it.
 */
public final class ProgramEditor extends BorderPane {
    private final CodeArea area = new CodeArea();
    private final Label error = new Label();
    private final IntFunction<Node> gutter;
    private int errorLine = -1;
    private int currentLine = -1;
    /** A program longer than this (about 3,000 lines) is put in the editor after its run has started. */
    static final int DEFERRED_CHARS = 100_000;
    private final SessionViewModel vm;

    public ProgramEditor(SessionViewModel vm) {
        this.vm = vm;
        area.setId("editor");
        error.setId("editor-error");
        error.getStyleClass().add("error");
        error.setWrapText(true);
        error.setMaxWidth(Double.MAX_VALUE);
        error.setVisible(false);
        error.setManaged(false);
        IntFunction<Node> numbers = LineNumberFactory.get(area);
        gutter = line -> {
            // Every line has the marker's slot, so marking one does not shift its text.
            Label mark = new Label(line == errorLine ? "●" : "");
            mark.getStyleClass().add("error-mark");
            mark.setMinWidth(10);
            mark.setPrefWidth(10);
            HBox box = new HBox(0, mark, numbers.apply(line));
            // Beside a wrapped line's first row, not half-way down its rows (the number then sat between
            // two rows of text, as if it numbered the row below).
            box.setAlignment(Pos.TOP_LEFT);
            // The gutter stays put while the text scrolls sideways beneath it (RichTextFX draws the
            // graphic over the text): opaque, so no character shows through the mark's slot.
            box.getStyleClass().add("gutter");
            return box;
        };
        area.setParagraphGraphicFactory(gutter);
        // A line longer than the pane wraps under itself: the examples' teaching comments were cut at
        // the pane's edge (about 45 characters at 1280 px), with no scroll bar in sight to read them.
        area.setWrapText(true);
        // Styles (the combining marks' font below) are not edits: undo takes back text only, and typed
        // text never inherits a neighbour's style.
        area.setUseInitialStyleForInsertion(true);
        area.setUndoManager(org.fxmisc.richtext.util.UndoUtils.plainTextUndoManager(area));
        area.textProperty().addListener((o, a, b) -> markCombining(b));
        area.replaceText(vm.source().get());
        area.getUndoManager().forgetHistory();
        // Each change of the text, in this order: the marks move with their lines, the session hears of the
        // edit (which may put the error aside), the step's line is found again in the new text.
        area.plainTextChanges().subscribe(change -> {
            moveMarks(change);
            String text = area.getText();
            if (!text.equals(vm.source().get())) {
                vm.edit(text);
            }
            followStep(false);
        });
        vm.source().addListener((o, a, b) -> {
            if (!b.equals(area.getText())) {
                if (b.length() > DEFERRED_CHARS) {
                    // A long program opened: filled after the run has started, so the run and the
                    // editor's filling (a second or more at 10,000 lines) go side by side, and after
                    // the next frame, so a window opened on it shows at once, its text a moment later.
                    NextFrame.after(this::showOpened);
                } else {
                    showOpened();
                }
            }
        });
        vm.error().addListener((o, a, e) -> showError(e));
        SweepViewModel sweep = vm.sweep();
        sweep.inspection().addListener((o, a, b) -> followStep(!typingWhilePlaying()));
        area.addEventFilter(javafx.scene.input.KeyEvent.KEY_TYPED, e -> {
            if (!e.getCharacter().isEmpty() && !e.isShortcutDown()) {
                typedAt = System.nanoTime();
            }
        });
        // Moving about the text (Ctrl+Home, Page Down, the arrows), a click in it or the wheel over it is the
        // user's too: the view had gone back to the step's line within a second, the caret out of view.
        area.addEventFilter(javafx.scene.input.KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode().isNavigationKey()) {
                typedAt = System.nanoTime();
            }
        });
        area.addEventFilter(javafx.scene.input.MouseEvent.MOUSE_PRESSED, e -> typedAt = System.nanoTime());
        area.addEventFilter(javafx.scene.input.ScrollEvent.SCROLL, e -> typedAt = System.nanoTime());
        setCenter(new VirtualizedScrollPane<>(area));
        setBottom(error);
    }

    /**
     * Whether the user is typing or moving about in the editor while the sweep plays: then the steps do not
     * move the view (each would take it away from the caret, and the next key back to it).
     */
    private boolean typingWhilePlaying() {
        return vm.sweep().playing().get() && area.isFocused() && typedAt != NEVER && System.nanoTime() - typedAt < TYPING_NANOS;
    }

    /** How long after the last character typed (or caret move, click, scroll) the user counts as working in the editor. */
    static final long TYPING_NANOS = 1_500_000_000L;
    private static final long NEVER = Long.MIN_VALUE;
    /** When the user last typed or moved about in the editor ({@link System#nanoTime}), or {@link #NEVER}. */
    private long typedAt = NEVER;

    /** Puts the program opened in the text (unless it is there already): it starts the undo history. */
    private void showOpened() {
        String text = vm.source().get();
        if (!text.equals(area.getText())) {
            area.replaceText(text);
            area.getUndoManager().forgetHistory();
            area.moveTo(0);
            area.showParagraphAtTop(0);
        }
    }

    /**
     * Selects line {@code line} (1-based) of the run on screen where it is in the text now, and scrolls it
     * into view; a line changed or removed since, or no line, does nothing.
     */
    public void showLine(int line) {
        line = vm.textLine(line);
        if (line < 1 || line > area.getParagraphs().size()) {
            return;
        }
        area.moveTo(line - 1, 0);
        area.selectParagraph(); // the whole statement, also where a long line wraps (selectLine takes one row)
        bringIntoView(line - 1);
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

    /** The 1-based line highlighted as the current node's, or 0. */
    public int currentLine() {
        return currentLine + 1;
    }

    /**
     * Gives each combining mark (the hat of x̂) the proportional font: in the monospaced one a
     * mark takes a cell of its own and its hat lands on the next character (the space after x̂);
     * the proportional font's mark has no width and sits on the letter before it.
     */
    private void markCombining(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.getType(text.charAt(i)) == Character.NON_SPACING_MARK) {
                area.setStyle(i, i + 1, COMBINING);
            }
        }
    }

    private static final List<String> COMBINING = List.of("combining");

    private void restyle(int line) {
        if (line < 0 || line >= area.getParagraphs().size()) {
            return;
        }
        List<String> styles = new ArrayList<>();
        if (line == errorLine) {
            styles.add("error-line");
        }
        if (line == currentLine) {
            styles.add("current-line");
        }
        area.setParagraphStyle(line, styles);
    }

    /**
     * Highlights the line of the node inspected, where it is in the text now (scrolled into view when
     * {@code scroll}). Edited since the run, a line of the run moves with the edits above it; a line that
     * was changed or removed is not highlighted: no line of the text now is that node's.
     */
    private void followStep(boolean scroll) {
        SweepViewModel sweep = vm.sweep();
        TraceGraph.Vertex v = sweep.vertex(sweep.inspectedVertex());
        showCurrent(v == null ? -1 : vm.textLine(v.line()) - 1, scroll);
    }

    private void showCurrent(int line, boolean scroll) {
        int previous = currentLine;
        currentLine = line;
        restyle(previous);
        restyle(line);
        if (scroll && line >= 0 && line < area.getParagraphs().size()) {
            bringIntoView(line);
        }
    }

    /** Scrolls line {@code line} (0-based) into view, and back to its start if the view is scrolled sideways. */
    private void bringIntoView(int line) {
        area.showParagraphInViewport(line);
        if (area.getEstimatedScrollX() > 0) {
            area.scrollXToPixel(0);
        }
    }

    /**
     * Moves the marked lines (the error's, the step's) with a change of the text: the paragraphs before it
     * keep their place, those after it move by the lines it added or removed. A mark inside the change is
     * taken off whichever of the changed paragraphs carries its style now (the area may have given it to
     * either half of a split line); the mark is then set again from the new text, if it is still there. A
     * changed paragraph that is no mark's loses any style the change brought (pasted text brings its own).
     */
    private void moveMarks(PlainTextChange change) {
        int start = area.offsetToPosition(change.getPosition(), org.fxmisc.richtext.model.TwoDimensional.Bias.Forward).getMajor();
        int removed = newlines(change.getRemoved());
        int inserted = newlines(change.getInserted());
        boolean inside = false;
        int[] marks = {currentLine, errorLine};
        for (int i = 0; i < marks.length; i++) {
            if (marks[i] >= start && marks[i] <= start + removed) {
                inside = true;
                marks[i] = -1;
            } else if (marks[i] > start + removed) {
                marks[i] += inserted - removed;
            }
        }
        currentLine = marks[0];
        errorLine = marks[1];
        // Every paragraph the change wrote carries the marks' styles only: pasted text (a copy of the step's
        // line) came with the style of the paragraph it was copied from, and kept it for good.
        boolean stray = false;
        for (int p = start; p <= start + inserted && p < area.getParagraphs().size(); p++) {
            if (p != currentLine && p != errorLine && !area.getParagraph(p).getParagraphStyle().isEmpty()) {
                area.setParagraphStyle(p, List.of());
                stray = true;
            }
        }
        if (inside || stray) {
            restyle(currentLine);
            restyle(errorLine);
        }
    }

    private static int newlines(String s) {
        int n = 0;
        for (int i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
            n++;
        }
        return n;
    }

    private void showError(RunError e) {
        int previous = errorLine;
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
        }
        restyle(previous);
        restyle(errorLine);
        if (errorLine >= 0 && errorLine < area.getParagraphs().size()) {
            area.showParagraphInViewport(errorLine);
            area.moveTo(errorLine, Math.max(0, Math.min(e.column() - 1, area.getParagraph(errorLine).length())));
        }
        // Redraw the gutter so the marker follows the error. Setting the same factory again changes
        // nothing (the old mark stayed after a fix): set none, then ours.
        area.setParagraphGraphicFactory(null);
        area.setParagraphGraphicFactory(gutter);
    }

    /** The gutter's marks now drawn (for tests): the text of each visible line's mark. */
    public List<String> marks() {
        List<String> out = new ArrayList<>();
        for (Node n : area.lookupAll(".error-mark")) {
            if (n instanceof Label l && !l.getText().isEmpty() && l.isVisible() && l.getScene() != null) {
                out.add(l.getText());
            }
        }
        return out;
    }
}
