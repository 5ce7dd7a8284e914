package io.gradscope.app.view;

import io.gradscope.app.viewmodel.MemoryOverlay;
import io.gradscope.app.viewmodel.MemoryTrack;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.tensor.MemoryCategory;
import java.util.List;
import java.util.function.IntConsumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The memory timeline: the active bytes after each trace event as areas stacked by category (what
 * is held for inspection on top, hatched apart from the program's own), the allocator's reserved
 * bytes as a line, the forward, backward and recompute phases shaded, the peak marked and the
 * sweep's cursor as a line; a second run compared with it as a line of its program bytes, with its
 * peak. A click tells the event under it. Drawing only: the data is a
 * {@link MemoryTrack}, the cursor an event index.
 */
final class MemoryChart extends Region {
    static final MemoryCategory[] STACK = {MemoryCategory.PARAMETER, MemoryCategory.ACTIVATION, MemoryCategory.GRADIENT,
        MemoryCategory.TEMPORARY, MemoryCategory.HELD_FOR_INSPECTION};

    static final double LEFT = 58;
    private static final double RIGHT = 10;
    /**
     * The narrowest the chart is left by the table beside it (MemoryPanel): the y axis' numbers, a plot where
     * the peak's label and the caption fit. At 1024 × 700 the table left it 110 px, the axis' caption
     * cut to "- - reserve" and the peak's label running off the right edge.
     */
    static final double MIN_WIDTH = LEFT + 80 + RIGHT;
    /** The legend's row height: the plot starts below its one or two rows. */
    private static final double LEGEND_ROW = 16;
    private static final Font TEXT = Font.font(10);
    private static final double BOTTOM = 18;

    private final Canvas canvas = new Canvas();
    /** The sweep's cursor: a line over the canvas, moved on each step without redrawing the timeline. */
    private final javafx.scene.shape.Line cursorLine = new javafx.scene.shape.Line();
    /** The plot's height as last drawn (the cursor line spans it). */
    private double plotH;
    private MemoryTrack track;
    private MemoryOverlay overlay;
    private int cursor = -1;
    private int draws;
    /** The text drawn last time, with where (tests: nothing runs off the chart). */
    private final List<Placed> texts = new java.util.ArrayList<>();

    /** A piece of text as drawn: its horizontal extent and its vertical middle. */
    record Placed(String text, double x0, double x1, double y) {
    }
    /** Where the plot starts: below the legend, which takes two rows when one is too narrow. */
    private double top = 22;

    MemoryChart(IntConsumer clicked) {
        setId("memory-chart");
        cursorLine.setStroke(Color.web("#e0a800"));
        cursorLine.setStrokeWidth(2);
        cursorLine.setMouseTransparent(true);
        cursorLine.setManaged(false);
        cursorLine.setVisible(false);
        getChildren().addAll(canvas, cursorLine);
        // Sized by layoutChildren to the region, never the other way round: managed, the canvas's width
        // from a wider layout became the region's least width, and the memory panel ran off both sides
        // of its column once the window was made narrower.
        canvas.setManaged(false);
        setMinHeight(90);
        setPrefHeight(160);
        canvas.setOnMouseClicked(e -> {
            if (track != null && e.getX() >= LEFT) {
                clicked.accept(eventAt(e.getX()));
            }
        });
    }

    /** The colour of a category on the chart (the table's swatches use the same). */
    static Color colour(MemoryCategory c) {
        return switch (c) {
            case PARAMETER -> Color.web("#e69f00");
            case ACTIVATION -> Color.web("#0072b2");
            case GRADIENT -> Color.web("#009e73");
            case TEMPORARY -> Color.web("#999999");
            case HELD_FOR_INSPECTION -> Color.web("#8e7cc3", 0.35);
        };
    }

    void show(MemoryTrack t) {
        track = t;
        draw();
    }

    /** Draws a second run over this one (null: none). */
    void overlay(MemoryOverlay o) {
        overlay = o;
        draw();
    }

    MemoryOverlay overlay() {
        return overlay;
    }

    /** The colour of the compared run's line. */
    static final Color OVERLAY = Color.web("#d81b60");

    /** Moves the sweep's cursor to trace event {@code event} (-1: none): the line moves, the timeline is not redrawn. */
    void cursor(int event) {
        cursor = event;
        placeCursor();
    }

    private void placeCursor() {
        boolean shown = cursor >= 0 && track != null && plotH > 0;
        cursorLine.setVisible(shown);
        if (shown) {
            double x = xOf(cursor);
            cursorLine.setStartX(x);
            cursorLine.setEndX(x);
            cursorLine.setStartY(top);
            cursorLine.setEndY(top + plotH);
        }
    }

    /** Where the cursor line is drawn (its x; NaN when hidden; tests). */
    double cursorX() {
        return cursorLine.isVisible() ? cursorLine.getStartX() : Double.NaN;
    }

    /** How many times the chart was drawn (tests). */
    int draws() {
        return draws;
    }

    /** The x position of trace event {@code event} (tests click there). */
    double xOf(int event) {
        double w = Math.max(1, getWidth() - LEFT - RIGHT);
        return LEFT + (track == null || track.events() <= 1 ? 0 : w * event / (track.events() - 1));
    }

    int eventAt(double x) {
        double w = Math.max(1, getWidth() - LEFT - RIGHT);
        int n = track.events();
        return (int) Math.max(0, Math.min(n - 1, Math.round((x - LEFT) / w * (n - 1))));
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        draw();
    }

    private void draw() {
        draws++;
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        texts.clear();
        g.clearRect(0, 0, w, h);
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setFont(TEXT);
        top = 6 + LEGEND_ROW * legendRows(w);
        plotH = 0;
        if (track == null || track.timeline().samples().isEmpty() || w <= LEFT + RIGHT || h <= top + BOTTOM) {
            placeCursor();
            return;
        }
        MemoryTimeline tl = track.timeline();
        double plotW = w - LEFT - RIGHT;
        double plotH = h - top - BOTTOM;
        this.plotH = plotH;
        long max = 1;
        for (MemoryTimeline.Sample s : tl.samples()) {
            long total = 0;
            for (MemoryCategory c : STACK) {
                total += s.of(c);
            }
            max = Math.max(max, Math.max(total, s.reserved()));
        }
        if (overlay != null) {
            max = Math.max(max, overlay.peak());
        }
        // Phases: shaded behind, named along the top where the name fits its span (names go on after
        // every span is shaded, so a later span never covers an earlier one's name).
        g.setTextBaseline(VPos.TOP);
        for (MemoryTrack.Span sp : track.spans()) {
            double x0 = xOf(sp.from());
            double x1 = xOf(Math.max(sp.from(), sp.to() - 1));
            Color c = switch (sp.phase()) {
                case FORWARD -> Color.web("#eef4fb");
                case BACKWARD -> Color.web("#fdf6e3");
                case RECOMPUTE -> Color.web("#f6c9c9");
            };
            g.setFill(c);
            g.fillRect(x0, top, Math.max(1, x1 - x0), plotH);
        }
        g.setFill(Color.gray(0.35));
        for (MemoryTrack.Span sp : track.spans()) {
            double x0 = xOf(sp.from());
            double x1 = xOf(Math.max(sp.from(), sp.to() - 1));
            String name = sp.phase().name().toLowerCase(java.util.Locale.ROOT);
            if (textWidth(name) + 6 <= x1 - x0) {
                text(g, name, x0 + 3, top + 2);
            }
        }
        // The stacked areas, one column of pixels at a time (the largest moment within each column).
        int cols = (int) Math.ceil(plotW);
        List<MemoryTimeline.Sample> samples = tl.samples();
        int si = 0;
        MemoryTimeline.Sample shown = null;
        for (int col = 0; col < cols; col++) {
            int e1 = eventAt(LEFT + col + 1);
            MemoryTimeline.Sample best = null;
            while (si < samples.size() && samples.get(si).event() <= e1) {
                MemoryTimeline.Sample s = samples.get(si++);
                if (best == null || total(s) >= total(best)) {
                    best = s;
                }
            }
            if (best != null) {
                shown = best;
            }
            if (shown == null) {
                continue;
            }
            double y = top + plotH;
            for (MemoryCategory c : STACK) {
                double hh = plotH * shown.of(c) / max;
                if (hh > 0) {
                    g.setFill(colour(c));
                    g.fillRect(LEFT + col, y - hh, 1.2, hh);
                }
                y -= hh;
            }
        }
        // Reserved bytes: a line.
        g.setStroke(Color.web("#333333"));
        g.setLineWidth(1.2);
        g.setLineDashes(4, 3);
        g.beginPath();
        boolean first = true;
        double lastY = 0;
        for (MemoryTimeline.Sample s : samples) {
            double x = xOf(s.event());
            double y = top + plotH - plotH * s.reserved() / max;
            if (first) {
                g.moveTo(x, y);
                first = false;
            } else {
                g.lineTo(x, lastY);
                g.lineTo(x, y);
            }
            lastY = y;
        }
        g.lineTo(LEFT + plotW, lastY);
        g.stroke();
        g.setLineDashes();
        // The peak of the program's own bytes.
        if (tl.peakEvent() >= 0) {
            double x = xOf(tl.peakEvent());
            double y = top + plotH - plotH * tl.peakBytes() / max;
            g.setStroke(Color.web("#c0392b"));
            g.setLineWidth(1.5);
            g.strokeLine(x, top, x, top + plotH);
            g.setFill(Color.web("#c0392b"));
            g.fillPolygon(new double[] {x - 5, x + 5, x}, new double[] {y - 9, y - 9, y - 1}, 3);
            // Under the phases' names, on a light box: legible over the areas and the cursor.
            label(g, x, top + 15, x > w / 2, "peak " + HeapLimit.human(tl.peakBytes()), HeapLimit.human(tl.peakBytes()));
        }
        if (overlay != null) {
            drawOverlay(g, plotW, plotH, max, w);
        }
        placeCursor();
        // Axes.
        g.setStroke(Color.gray(0.5));
        g.setLineWidth(1);
        g.strokeLine(LEFT, top, LEFT, top + plotH);
        g.strokeLine(LEFT, top + plotH, LEFT + plotW, top + plotH);
        g.setFill(Color.gray(0.25));
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        text(g, HeapLimit.human(max), LEFT - 4, top + 6);
        text(g, "0", LEFT - 4, top + plotH);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        // The axis's name goes first when the line is too narrow for it and the lines' key.
        String compared = overlay == null ? "" : "   — " + overlay.policy();
        String caption = "trace events →   - - reserved" + compared + (overlay == null ? "" : " (compared)");
        for (String shorter : new String[] {"- - reserved" + compared + (overlay == null ? "" : " (compared)"),
            "- - reserved" + compared, "- - reserved", ""}) {
            if (textWidth(caption) > w - LEFT) {
                caption = shorter;
            }
        }
        if (!caption.isEmpty()) {
            text(g, caption, LEFT, top + plotH + 3);
        }
        legend(g, w);
    }

    /** The compared run's program bytes as a stepped line, and its peak. */
    private void drawOverlay(GraphicsContext g, double plotW, double plotH, long max, double w) {
        double[] xs = overlay.x();
        long[] bs = overlay.bytes();
        g.setStroke(OVERLAY);
        g.setLineWidth(1.6);
        g.beginPath();
        double lastY = top + plotH;
        g.moveTo(LEFT, lastY);
        for (int i = 0; i < xs.length; i++) {
            double x = xOf(xs[i]);
            double y = top + plotH - plotH * bs[i] / max;
            g.lineTo(x, lastY);
            g.lineTo(x, y);
            lastY = y;
        }
        g.lineTo(LEFT + plotW, lastY);
        g.stroke();
        double x = xOf(overlay.peakX());
        double y = top + plotH - plotH * overlay.peak() / max;
        g.setFill(OVERLAY);
        g.fillOval(x - 4, y - 4, 8, 8);
        label(g, x, Math.max(top + 30, y - 15), x > w / 2, overlay.policy() + " peak " + HeapLimit.human(overlay.peak()),
                HeapLimit.human(overlay.peak()));
    }

    /**
     * The first of {@code texts} that fits the plot's width (none when none does: a narrow chart drops
     * "peak" and keeps the size), in the current fill on a light box, its top at {@code y}, beside
     * the line at {@code x}: to its left when {@code left}, else to its right.
     */
    private void label(GraphicsContext g, double x, double y, boolean left, String... texts) {
        String text = null;
        for (String t : texts) {
            if (text == null && textWidth(t) <= getWidth() - LEFT - 6) {
                text = t;
            }
        }
        if (text == null) {
            return;
        }
        javafx.scene.paint.Paint ink = g.getFill();
        double tw = textWidth(text);
        double x0 = labelX(x, tw, left, getWidth());
        g.setFill(Color.rgb(255, 255, 255, 0.85));
        g.fillRect(x0 - 2, y - 1, tw + 4, 13);
        g.setFill(ink);
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        text(g, text, x0, y);
    }

    /**
     * Where a label {@code tw} wide beside the line at {@code x} starts: to its left or right, but
     * never left of the y axis (over the axis's numbers) nor past the chart's right edge.
     */
    static double labelX(double x, double tw, boolean left, double width) {
        double x0 = left ? x - 6 - tw : x + 6;
        return Math.max(LEFT + 3, Math.min(x0, width - tw - 3));
    }

    /** What the chart wrote when last drawn (tests). */
    List<Placed> texts() {
        return List.copyOf(texts);
    }

    /** Writes {@code s} at (x, y) as the context's alignment and baseline place it, and notes where. */
    private void text(GraphicsContext g, String s, double x, double y) {
        double tw = textWidth(s);
        double x0 = switch (g.getTextAlign()) {
            case RIGHT -> x - tw;
            case CENTER -> x - tw / 2;
            default -> x;
        };
        double mid = switch (g.getTextBaseline()) {
            case TOP -> y + 6;
            case BOTTOM -> y - 6;
            default -> y;
        };
        texts.add(new Placed(s, x0, x0 + tw, mid));
        g.fillText(s, x, y);
    }

    /** The width of {@code s} in the chart's font. */
    static double textWidth(String s) {
        javafx.scene.text.Text t = new javafx.scene.text.Text(s);
        t.setFont(TEXT);
        return t.getLayoutBounds().getWidth();
    }

    /** The x position of a place between trace events. */
    private double xOf(double event) {
        double w = Math.max(1, getWidth() - LEFT - RIGHT);
        return LEFT + (track == null || track.events() <= 1 ? 0 : w * event / (track.events() - 1));
    }

    private static long total(MemoryTimeline.Sample s) {
        long t = 0;
        for (MemoryCategory c : STACK) {
            t += s.of(c);
        }
        return t;
    }

    private static String legendName(MemoryCategory c) {
        return switch (c) {
            case PARAMETER -> "params";
            case ACTIVATION -> "activations";
            case GRADIENT -> "grads";
            case TEMPORARY -> "temp";
            case HELD_FOR_INSPECTION -> "held";
        };
    }

    /**
     * Where each category's swatch and name go at width {@code w}: {x, y, width} per category of
     * {@link #STACK}, on one row or wrapped onto more, none past the right edge where it fits at all.
     */
    static double[][] legendPlaces(double w) {
        double[][] places = new double[STACK.length][];
        double x = 4;
        double y = 5;
        for (int i = 0; i < STACK.length; i++) {
            double item = 13 + textWidth(legendName(STACK[i]));
            if (x > 4 && x + item > w - 4) {
                x = 4;
                y += LEGEND_ROW;
            }
            places[i] = new double[] {x, y, item};
            x += item + 10;
        }
        return places;
    }

    /** How many rows the legend takes at width {@code w}. */
    private static int legendRows(double w) {
        double[][] places = legendPlaces(w);
        return (int) Math.round((places[places.length - 1][1] - 5) / LEGEND_ROW) + 1;
    }

    /** Every category's swatch and name, on one row or wrapped. */
    private void legend(GraphicsContext g, double w) {
        double[][] places = legendPlaces(w);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        for (int i = 0; i < STACK.length; i++) {
            double x = places[i][0];
            double y = places[i][1];
            g.setFill(colour(STACK[i]));
            g.fillRect(x, y, 10, 10);
            g.setFill(Color.gray(0.2));
            text(g, legendName(STACK[i]), x + 13, y + 5);
        }
    }
}
