package io.gradscope.app.view;

import io.gradscope.app.viewmodel.ScalarGraph;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Pane;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.CubicCurve;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * A node's scalar graph in a window of its own: inputs on the left, the products and sums (or
 * the elementwise functions) in layers, the outputs on the right, each box with its value and its
 * gradient for the recorded upstream gradient. Shows the engine's message when the node cannot be
 * expanded.
 */
public final class ScalarGraphView extends BorderPane {
    static final double W = 124;
    static final double H = 52;
    static final double COL = 170;
    static final double ROW = 62;

    private final List<Label> boxes = new ArrayList<>();

    public ScalarGraphView(ScalarGraph g) {
        setId("scalar-graph");
        Label title = new Label(g.title() + " as scalars");
        title.getStyleClass().add("title");
        Label note = new Label();
        note.setId("scalar-message");
        note.setWrapText(true);
        note.getStyleClass().add("stats");
        VBox top = new VBox(4, title, note);
        top.setPadding(new Insets(8));
        setTop(top);
        if (!g.drawn()) {
            note.setText(g.message());
            return;
        }
        long inputs = g.scalars().stream().filter(s -> s.role() == ScalarGraph.Role.INPUT).count();
        long outputs = g.scalars().stream().filter(s -> s.role() == ScalarGraph.Role.OUTPUT).count();
        double agree = g.agreement();
        note.setText(String.format(Locale.ROOT, "%d scalars: %d inputs, %d outputs. Each box: its value v and its gradient g for the "
                + "upstream gradient the backward pass recorded. An input's g sums the paths through it: the node's VJP%s.",
                g.scalars().size(), inputs, outputs, Double.isNaN(agree) ? ""
                        : String.format(Locale.ROOT, " (it agrees with the engine's to %.1e)", agree)));
        setCenter(new ScrollPane(draw(g)));
    }

    private Pane draw(ScalarGraph g) {
        Pane pane = new Pane();
        pane.setPadding(new Insets(10));
        int last = g.layers() - 1;
        int[] column = new int[g.scalars().size()];
        List<List<Integer>> cols = new ArrayList<>();
        for (int i = 0; i <= last; i++) {
            cols.add(new ArrayList<>());
        }
        for (ScalarGraph.Scalar s : g.scalars()) {
            column[s.id()] = s.role() == ScalarGraph.Role.OUTPUT ? last : s.layer();
            cols.get(column[s.id()]).add(s.id());
        }
        // Rows: inputs in order; each later column by the mean row of its operands (fewer crossings).
        double[] row = new double[g.scalars().size()];
        List<List<Integer>> operands = new ArrayList<>();
        g.scalars().forEach(s -> operands.add(new ArrayList<>()));
        for (int[] e : g.edges()) {
            operands.get(e[1]).add(e[0]);
        }
        for (int c = 0; c <= last; c++) {
            List<Integer> ids = cols.get(c);
            if (c > 0) {
                double[] key = new double[g.scalars().size()];
                for (int id : ids) {
                    key[id] = operands.get(id).stream().mapToDouble(o -> row[o]).average().orElse(0);
                }
                ids.sort(Comparator.comparingDouble((Integer id) -> key[id]).thenComparingInt(id -> id));
            }
            for (int k = 0; k < ids.size(); k++) {
                row[ids.get(k)] = k;
            }
        }
        for (int[] e : g.edges()) {
            double x1 = 10 + column[e[0]] * COL + W;
            double y1 = 10 + row[e[0]] * ROW + H / 2;
            double x2 = 10 + column[e[1]] * COL;
            double y2 = 10 + row[e[1]] * ROW + H / 2;
            CubicCurve curve = new CubicCurve(x1, y1, (x1 + x2) / 2, y1, (x1 + x2) / 2, y2, x2, y2);
            curve.setFill(null);
            curve.setStroke(Color.web("#9aa3b5"));
            curve.setStrokeWidth(0.8);
            pane.getChildren().add(curve);
        }
        for (ScalarGraph.Scalar s : g.scalars()) {
            Label box = new Label(s.label() + "\n" + String.format(Locale.ROOT, "v %s%ng %s", num(s.value()), num(s.grad())));
            box.getStyleClass().addAll("scalar", s.role().name().toLowerCase(Locale.ROOT));
            box.setLayoutX(10 + column[s.id()] * COL);
            box.setLayoutY(10 + row[s.id()] * ROW);
            box.setPrefSize(W, H);
            box.setMinSize(W, H);
            boxes.add(box);
            pane.getChildren().add(box);
        }
        return pane;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "NaN" : String.format(Locale.ROOT, "%.4g", v);
    }

    /** The scalars' boxes, in the graph's order. */
    public List<Label> boxes() {
        return boxes;
    }

    private static final javafx.scene.input.KeyCombination CLOSE = javafx.scene.input.KeyCombination.keyCombination("Shortcut+W");

    /** Opens a window on a scalar graph. */
    public static Stage open(ScalarGraph g, Window owner, String stylesheet) {
        Stage stage = new Stage();
        if (owner != null) {
            stage.initOwner(owner);
        }
        stage.setTitle(g.title() + " as scalars — Gradscope");
        // At most 90% of the screen (a window past its edges is clipped, and headless screens are small).
        var screen = javafx.stage.Screen.getPrimary().getVisualBounds();
        Scene scene = new Scene(new ScalarGraphView(g), Math.min(g.drawn() ? 900 : 560, screen.getWidth() * 0.9),
                Math.min(g.drawn() ? 640 : 160, screen.getHeight() * 0.9));
        if (stylesheet != null) {
            scene.getStylesheets().add(stylesheet);
        }
        // Esc or Ctrl+W closes it, as a dialog's window is closed.
        scene.addEventHandler(javafx.scene.input.KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == javafx.scene.input.KeyCode.ESCAPE || CLOSE.match(e)) {
                stage.close();
                e.consume();
            }
        });
        stage.setScene(scene);
        stage.show();
        stage.setX(screen.getMinX() + Math.max(0, (screen.getWidth() - scene.getWidth()) / 2));
        stage.setY(screen.getMinY() + Math.max(0, (screen.getHeight() - scene.getHeight()) / 2));
        return stage;
    }
}
