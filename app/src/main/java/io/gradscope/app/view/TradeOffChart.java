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
        // Sized by layoutChildren to the region, never the other way round: managed, the canvas's width
        // from a wider layout became the region's least width, and the memory panel ran off both sides
        // of its column once the window was made narrower.
        canvas.setManaged(false);
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
        List<TradeOff.Point> curve = sortedCurve();
        Color line = Color.web("#0072b2");
        g.setStroke(line);
        g.setLineWidth(1.4);
        for (double[] seg : staircase()) {
            g.strokeLine(seg[0], seg[1], seg[2], seg[3]);
        }
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
            g.setTextAlign(TextAlignment.LEFT);
            String label = String.join(", ", same.stream().map(TradeOff.Point::label).toList());
            double[] r = namedLabel(q, label);
            g.fillText(label, r[0], r[3]);
        }
        // The current choice.
        double[] c = at(data.current());
        g.setStroke(Color.web("#c0392b"));
        g.setLineWidth(2);
        g.strokeOval(c[0] - 8, c[1] - 8, 16, 16);
        g.setFill(Color.web("#c0392b"));
        g.setTextAlign(TextAlignment.LEFT);
        g.setTextBaseline(VPos.TOP);
        double[] label = currentLabel();
        g.fillText(currentText(), label[0], label[1]);
        g.setTextAlign(TextAlignment.LEFT);
        if (!note.isEmpty()) {
            g.setFill(Color.gray(0.3));
            g.fillText(note, LEFT + 6, TOP);
        }
    }


    /** The line height of the chart's 10 px text. */
    private static final double TEXT_H = 12;

    private List<TradeOff.Point> sortedCurve() {
        List<TradeOff.Point> curve = new ArrayList<>(data.curve());
        curve.sort(Comparator.comparingLong(TradeOff.Point::flops).thenComparing(TradeOff.Point::peak, Comparator.reverseOrder()));
        return curve;
    }

    /**
     * The budget curve's staircase as drawn, in order of compute: segments x0, y0, x1, y1 in pixels (with
     * more compute the peak stays until the next plan lowers it).
     */
    List<double[]> staircase() {
        List<double[]> out = new ArrayList<>();
        double[] prev = null;
        for (TradeOff.Point p : sortedCurve()) {
            double[] q = at(p);
            if (prev != null) {
                out.add(new double[] {prev[0], prev[1], q[0], prev[1]});
                out.add(new double[] {q[0], prev[1], q[0], q[1]});
            }
            prev = q;
        }
        return out;
    }

    /** A named policy's label beside its mark at {@code q}: left of it near the right end, else right; x0, y0, x1, y1. */
    private double[] namedLabel(double[] q, String label) {
        double tw = textWidth(label);
        boolean right = q[0] > LEFT + (getWidth() - LEFT - RIGHT) * 0.7;
        double x0 = right ? q[0] - 7 - tw : q[0] + 7;
        x0 = Math.max(LEFT + 2, Math.min(x0, getWidth() - 2 - tw)); // inside the chart ("segments" read "segme")
        return new double[] {x0, q[1] - 3 - TEXT_H, x0 + tw, q[1] - 3};
    }

    private static boolean clear(double[] r, List<double[]> marks) {
        for (double[] m : marks) {
            if (m[0] < r[2] && m[2] > r[0] && m[1] < r[3] && m[3] > r[1]) {
                return false;
            }
        }
        return true;
    }

    /** What the current choice's label says. */
    String currentText() {
        return "current: " + data.current().label() + " · " + HeapLimit.human(data.current().peak()) + ", +"
                + percent(data.current().flops());
    }

    /**
     * Everything drawn in the plot the current choice's label must not cover (x0, y0, x1, y1 each): the
     * staircase, the budget points, the policies' marks and labels, the current choice's ring.
     */
    List<double[]> marks() {
        List<double[]> out = new ArrayList<>();
        for (double[] seg : staircase()) {
            out.add(new double[] {Math.min(seg[0], seg[2]) - 1, Math.min(seg[1], seg[3]) - 1, Math.max(seg[0], seg[2]) + 1,
                Math.max(seg[1], seg[3]) + 1});
        }
        for (TradeOff.Point p : data.curve()) {
            double[] q = at(p);
            out.add(new double[] {q[0] - 4.5, q[1] - 4.5, q[0] + 4.5, q[1] + 4.5});
        }
        java.util.Map<String, List<String>> bySpot = new java.util.LinkedHashMap<>();
        java.util.Map<String, double[]> spot = new java.util.HashMap<>();
        for (TradeOff.Point p : data.named()) {
            String k = p.peak() + "/" + p.flops();
            bySpot.computeIfAbsent(k, x -> new ArrayList<>()).add(p.label());
            spot.putIfAbsent(k, at(p));
        }
        for (var e : bySpot.entrySet()) {
            double[] q = spot.get(e.getKey());
            out.add(new double[] {q[0] - 5, q[1] - 5, q[0] + 5, q[1] + 5});
            out.add(namedLabel(q, String.join(", ", e.getValue())));
        }
        double[] c = at(data.current());
        out.add(new double[] {c[0] - 9, c[1] - 9, c[0] + 9, c[1] + 9});
        return out;
    }

    /**
     * Where the current choice's label goes (x0, y0, x1, y1): beside its ring, below or above it, on the
     * side with more room, nearest first, the first place inside the plot that covers none of {@link #marks}
     * (it was always below and right of the ring, over the staircase going down from it); where every place
     * covers some, the one covering fewest.
     */
    double[] currentLabel() {
        double[] c = at(data.current());
        double tw = textWidth(currentText());
        double plotW = getWidth() - LEFT - RIGHT;
        double plotH = getHeight() - TOP - BOTTOM;
        boolean rightFirst = c[0] <= LEFT + plotW * 0.6;
        List<double[]> marks = marks();
        double[] best = null;
        int fewest = Integer.MAX_VALUE;
        for (double away : new double[] {6, 14, 24, 36}) {
            for (int side = 0; side < 2; side++) {
                boolean right = rightFirst == (side == 0);
                double x0 = right ? c[0] + 10 : c[0] - 10 - tw;
                for (double y0 : new double[] {c[1] + away, c[1] - away - TEXT_H}) {
                    double[] r = {x0, y0, x0 + tw, y0 + TEXT_H};
                    if (r[0] < LEFT + 1 || r[2] > getWidth() - 1 || r[1] < 0 || r[3] > TOP + plotH - 1) {
                        continue;
                    }
                    int n = 0;
                    for (double[] m : marks) {
                        if (m[0] < r[2] && m[2] > r[0] && m[1] < r[3] && m[3] > r[1]) {
                            n++;
                        }
                    }
                    if (n < fewest) {
                        fewest = n;
                        best = r;
                    }
                    if (n == 0) {
                        return r;
                    }
                }
            }
        }
        // Nowhere beside the ring (a long label across the staircase's drop): the clear place nearest it.
        double[] near = null;
        double nearest = Double.MAX_VALUE;
        for (double y0 = TOP; y0 + TEXT_H <= TOP + plotH - 1; y0 += 3) {
            for (double x0 = LEFT + 2; x0 + tw <= getWidth() - 1; x0 += 6) {
                double[] r = {x0, y0, x0 + tw, y0 + TEXT_H};
                double dx = Math.max(0, Math.max(r[0] - c[0], c[0] - r[2]));
                double dy = Math.max(0, Math.max(r[1] - c[1], c[1] - r[3]));
                double d = dx * dx + dy * dy;
                if (d < nearest && clear(r, marks)) {
                    nearest = d;
                    near = r;
                }
            }
        }
        if (near != null) {
            return near;
        }
        if (best == null) {
            double x0 = rightFirst ? c[0] + 10 : c[0] - 10 - tw;
            best = new double[] {x0, c[1] + 6, x0 + tw, c[1] + 6 + TEXT_H};
        }
        return best;
    }

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
