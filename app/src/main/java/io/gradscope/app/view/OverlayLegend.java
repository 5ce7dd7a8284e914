package io.gradscope.app.view;

import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.app.viewmodel.OverlayViewModel;
import java.util.Locale;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;

/** The colour scale of the graph's overlay (gradient norm or difference), in a strip above the graph. */
public final class OverlayLegend extends VBox {
    private final DiagnosticsViewModel vm;
    private final Label title = new Label();
    private final Label lo = new Label();
    private final Label hi = new Label();
    private final Canvas bar = new Canvas(160, 10);

    private OverlayLegend(DiagnosticsViewModel vm) {
        super(2);
        this.vm = vm;
        setId("overlay-legend");
        getStyleClass().add("overlay-legend");
        setPadding(new Insets(6));
        setMouseTransparent(true);
        setMaxSize(USE_PREF_SIZE, USE_PREF_SIZE);
        title.getStyleClass().add("stats");
        lo.getStyleClass().add("stats");
        hi.getStyleClass().add("stats");
        HBox scale = new HBox(4, lo, bar, hi);
        scale.setAlignment(Pos.CENTER_LEFT);
        getChildren().addAll(title, scale);
        vm.revision().addListener((o, a, b) -> refresh());
        vm.overlay().addListener((o, a, b) -> refresh());
        refresh();
    }

    /**
     * The graph with the legend in a strip above it, shown only while an overlay is on: over the
     * graph it would hide the nodes under it, whatever corner it took.
     */
    public static VBox above(javafx.scene.Node graph, DiagnosticsViewModel vm) {
        OverlayLegend l = new OverlayLegend(vm);
        l.setMaxSize(Double.MAX_VALUE, USE_PREF_SIZE);
        l.managedProperty().bind(l.visibleProperty());
        VBox box = new VBox(l, graph);
        VBox.setVgrow(graph, javafx.scene.layout.Priority.ALWAYS);
        return box;
    }

    private void refresh() {
        OverlayViewModel.Scale s = vm.scale();
        setVisible(s != null);
        if (s == null) {
            return;
        }
        title.setText(s.title());
        lo.setText(pow(s.lo()));
        hi.setText(pow(s.hi()));
        GraphicsContext g = bar.getGraphicsContext2D();
        int n = s.colours().size();
        double w = bar.getWidth() / n;
        for (int i = 0; i < n; i++) {
            g.setFill(Color.web(s.colours().get(i)));
            g.fillRect(i * w, 0, w + 0.5, bar.getHeight());
        }
    }

    private static String pow(double log10) {
        return String.format(Locale.ROOT, "%.1e", Math.pow(10, log10));
    }

    public Label titleLabel() {
        return title;
    }
}
