package io.gradscope.app.view;

import io.gradscope.app.viewmodel.TradeOff;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.recompute.RematPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

/**
 * The trade-off curve: predicted peak memory (y) against extra compute (x, the FLOPs recomputed as a
 * share of the forward pass's) for the budget policy over a range of budgets (dots joined by a
 * staircase in order of compute; hollow where the budget does not fit), the named policies as labelled squares, and the
 * current choice ringed. A click on a point runs with its policy. Drawing only.
 */
final class TradeOffChart extends Region {
    static final double LEFT = 64;
    private static final double RIGHT = 16;
    static final double TOP = 18;
    private static final double BOTTOM = 30;
    /**
     * The points are drawn this far inside the axes: the current choice's ring (8 px) at the highest
     * peak and no extra compute covered the axis' label of that peak.
     */
    static final double INSET = 11;
    /** The x axis' caption, the longest that fits between the axis' end labels. */
    /** The legend, longest first: what fits of it is drawn (at 1024 wide the longest ended in "curre"). */
    static final String[] LEGENDS = {"● budget that fits   ○ budget that does not (its lowest peak)   ■ policy   ◎ current",
        "● budget fits   ○ does not (lowest peak)   ■ policy   ◎ current", "● fits   ○ does not   ■ policy   ◎ current"};
    static final String[] CAPTIONS = {"extra compute: FLOPs recomputed, % of the forward pass's", "extra compute, % of forward FLOPs",
        "extra compute"};

    private final Canvas canvas = new Canvas();
    private TradeOff data;
    private String note = "";

    TradeOffChart(Consumer<RematPolicy> clicked) {
        setId("memory-tradeoff");
        getChildren().add(canvas);
        setMinHeight(90);
        setPrefHeight(160);
        canvas.setOnMouseClicked(e -> {
            TradeOff.Point p = pointAt(e.getX(), e.getY());
            if (p != null) {
                clicked.accept(p.policy());
            }
        });
    }

    void show(TradeOff t, String note) {
        data = t;
        this.note = note == null ? "" : note;
        draw();
    }

    TradeOff data() {
        return data;
    }

    /** Where a point is drawn (tests click there). */
    double[] at(TradeOff.Point p) {
        double plotW = Math.max(1, getWidth() - LEFT - RIGHT - 2 * INSET);
        double plotH = Math.max(1, getHeight() - TOP - BOTTOM - 2 * INSET);
        double x = LEFT + INSET + plotW * p.flops() / Math.max(1.0, data.maxFlops());
        double lo = floor();
        double y = TOP + INSET + plotH - plotH * (p.peak() - lo) / Math.max(1.0, data.maxPeak() - lo);
        return new double[] {x, y};
    }

    /** The bottom of the y axis: a little under the lowest peak (the peaks share a floor of parameters and gradients). */
    private long floor() {
        long lo = data.maxPeak();
        for (TradeOff.Point p : all()) {
            lo = Math.min(lo, p.peak());
        }
        return Math.max(0, lo - Math.max(1, (data.maxPeak() - lo) / 6));
    }

    private List<TradeOff.Point> all() {
        List<TradeOff.Point> out = new ArrayList<>(data.named());
        out.addAll(data.curve());
        return out;
    }

    private TradeOff.Point pointAt(double x, double y) {
        if (data == null) {
            return null;
        }
        TradeOff.Point best = null;
        double bestD = 8 * 8;
        for (TradeOff.Point p : all()) {
            double[] q = at(p);
            double d = (q[0] - x) * (q[0] - x) + (q[1] - y) * (q[1] - y);
            if (d < bestD || (best == null && d <= bestD)) { // a named policy wins a tie with a budget on the same spot
                best = p;
                bestD = d;
            }
        }
        return best;
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        draw();
    }

    private void draw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setFont(Font.font(10));
        g.setFill(Color.gray(0.3));
        g.setTextBaseline(VPos.TOP);
        g.setTextAlign(TextAlignment.LEFT);
        if (data == null || w <= LEFT + RIGHT || h <= TOP + BOTTOM) {
            g.fillText(note.isEmpty() ? "No trade-off planned yet" : note, LEFT, TOP);
            return;
        }
        double plotW = w - LEFT - RIGHT;
        double plotH = h - TOP - BOTTOM;
        // Axes, with the ends labelled.
        g.setStroke(Color.gray(0.5));
        g.setLineWidth(1);
        g.strokeLine(LEFT, TOP, LEFT, TOP + plotH);
        g.strokeLine(LEFT, TOP + plotH, LEFT + plotW, TOP + plotH);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        // The ends' labels where the points at the ends are drawn (INSET inside the axes).
        String[] ends = endLabels(data.maxPeak(), floor());
        g.fillText(ends[0], LEFT - 4, TOP + INSET);
        g.fillText(ends[1], LEFT - 4, TOP + plotH - INSET);
        g.setTextBaseline(VPos.TOP);
        String max = percent(data.maxFlops());
        g.fillText(max, LEFT + plotW - INSET + 8, TOP + plotH + 3);
        g.setTextAlign(TextAlignment.LEFT);
        g.fillText("0", LEFT + INSET - 3, TOP + plotH + 3);
        g.setTextAlign(TextAlignment.CENTER);
        double room = plotW - 2 * INSET - 2 * (textWidth(max) + 8);
        g.fillText(caption(room), LEFT + plotW / 2, TOP + plotH + 3);
        g.fillText(legend(2 * Math.min(LEFT + plotW / 2, w - LEFT - plotW / 2) - 4), LEFT + plotW / 2, TOP + plotH + 15);
        g.setTextAlign(TextAlignment.LEFT);
        g.save();
        g.translate(12, TOP + plotH / 2);
        g.rotate(-90);
        g.setTextAlign(TextAlignment.CENTER);
        g.fillText(axisTitle(plotH - 2 * INSET - 28), 0, 0);
        g.restore();
        // The budget curve, in order of compute.
        List<TradeOff.Point> curve = new ArrayList<>(data.curve());
        curve.sort(Comparator.comparingLong(TradeOff.Point::flops).thenComparing(TradeOff.Point::peak, Comparator.reverseOrder()));
        Color line = Color.web("#0072b2");
        g.setStroke(line);
        g.setLineWidth(1.4);
        g.beginPath();
        // A staircase: with more compute the peak stays until the next plan lowers it.
        double[] prev = null;
        for (TradeOff.Point p : curve) {
            double[] q = at(p);
            if (prev == null) {
                g.moveTo(q[0], q[1]);
            } else {
                g.lineTo(q[0], prev[1]);
                g.lineTo(q[0], q[1]);
            }
            prev = q;
        }
        g.stroke();
        for (TradeOff.Point p : curve) {
            double[] q = at(p);
            if (p.fits()) {
                g.setFill(line);
                g.fillOval(q[0] - 3.5, q[1] - 3.5, 7, 7);
            } else {
                g.setFill(Color.WHITE);
                g.fillOval(q[0] - 3.5, q[1] - 3.5, 7, 7);
                g.strokeOval(q[0] - 3.5, q[1] - 3.5, 7, 7);
            }
        }
        // The named policies; those on the same spot share one label ("segments, sqrt").
        g.setTextBaseline(VPos.BOTTOM);
        java.util.Map<String, List<TradeOff.Point>> bySpot = new java.util.LinkedHashMap<>();
        for (TradeOff.Point p : data.named()) {
            bySpot.computeIfAbsent(p.peak() + "/" + p.flops(), k -> new ArrayList<>()).add(p);
        }
        for (List<TradeOff.Point> same : bySpot.values()) {
            double[] q = at(same.get(0));
            g.setFill(Color.web("#e69f00"));
            g.fillRect(q[0] - 4, q[1] - 4, 8, 8);
            g.setFill(Color.gray(0.15));
            boolean right = q[0] > LEFT + plotW * 0.7;
            g.setTextAlign(right ? TextAlignment.RIGHT : TextAlignment.LEFT);
            String label = String.join(", ", same.stream().map(TradeOff.Point::label).toList());
            g.fillText(label, q[0] + (right ? -7 : 7), q[1] - 3);
        }
        // The current choice.
        double[] c = at(data.current());
        g.setStroke(Color.web("#c0392b"));
        g.setLineWidth(2);
        g.strokeOval(c[0] - 8, c[1] - 8, 16, 16);
        g.setFill(Color.web("#c0392b"));
        boolean right = c[0] > LEFT + plotW * 0.6;
        g.setTextAlign(right ? TextAlignment.RIGHT : TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        g.fillText("current: " + data.current().label() + " · " + HeapLimit.human(data.current().peak()) + ", +"
                + percent(data.current().flops()), c[0] + (right ? -10 : 10), c[1] + 6);
        g.setTextAlign(TextAlignment.LEFT);
        if (!note.isEmpty()) {
            g.setFill(Color.gray(0.3));
            g.fillText(note, LEFT + 6, TOP);
        }
    }

    /** The longest caption of the x axis that fits {@code room} px ({@link #CAPTIONS}). */
    /**
     * The y axis' end labels, top and bottom: in the units {@link HeapLimit#human} picks, with as many
     * decimals as it takes (up to three) for different peaks to read differently (two peaks 30 bytes apart
     * both read "240.3 KiB").
     */
    static String[] endLabels(double top, double bottom) {
        String[] l = {HeapLimit.human(top), HeapLimit.human(bottom)};
        for (int decimals = 2; decimals <= 3 && top != bottom && l[0].equals(l[1]); decimals++) {
            l = new String[] {HeapLimit.human(top, decimals), HeapLimit.human(bottom, decimals)};
        }
        return l;
    }

    /** The y axis' title, the longest that fits along {@code room} pixels between its end labels ("" when none does). */
    static String axisTitle(double room) {
        for (String t : new String[] {"predicted peak", "peak"}) {
            if (textWidth(t) <= room) {
                return t;
            }
        }
        return "";
    }

    /** The legend, the longest that fits in {@code room} pixels ("" when none does). */
    static String legend(double room) {
        for (String l : LEGENDS) {
            if (textWidth(l) <= room) {
                return l;
            }
        }
        return "";
    }

    static String caption(double room) {
        for (String c : CAPTIONS) {
            if (textWidth(c) <= room) {
                return c;
            }
        }
        return "";
    }

    static double textWidth(String s) {
        javafx.scene.text.Text t = new javafx.scene.text.Text(s);
        t.setFont(Font.font(10));
        return t.getLayoutBounds().getWidth();
    }

    private String percent(long flops) {
        return String.format(Locale.ROOT, "%.0f%%", 100.0 * flops / Math.max(1, data.forwardFlops()));
    }
}
