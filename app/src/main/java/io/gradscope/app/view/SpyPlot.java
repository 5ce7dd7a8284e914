package io.gradscope.app.view;

import io.gradscope.engine.sparse.Pattern;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;

/**
 * A sparsity pattern drawn as a spy plot: one square per nonzero, coloured by its color class (of
 * its column, or its row). When the matrix has more rows or columns than the view has pixels, each
 * pixel is a block of entries, shaded by the fraction of them that are nonzero (darker: denser),
 * in its class's colour when they share one, else grey. The wheel zooms about the pointer, a drag
 * pans, a click picks the nonzero under the pointer (the nearest one in a block).
 */
public final class SpyPlot extends Pane {
    /** Distinct colours for the first color classes; later ones go round the hue circle. */
    private static final String[] PALETTE = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
        "#17becf", "#bcbd22", "#7f7f7f"};
    private static final Color MIXED = Color.web("#3b4252");
    private static final Color FRAME = Color.web("#9aa3b5");

    private final Canvas canvas = new Canvas();
    private Pattern pattern;
    private int[] classes;
    private boolean byColumn = true;
    /** Pixels per entry across and down, and where entry (0, 0)'s corner is. */
    private double sx = 1;
    private double sy = 1;
    /** Whether fitting fills the view (entries not square: for a compressed matrix of a few columns). */
    private boolean stretch;
    private double offX;
    private double offY;
    private boolean fitted;
    private double pressX;
    private double pressY;
    private boolean dragged;
    private int shown;
    private BiConsumer<Integer, Integer> onPick = (i, j) -> { };
    private int[] marked;

    public SpyPlot() {
        getChildren().add(canvas);
        getStyleClass().add("spy-plot");
        canvas.widthProperty().bind(widthProperty());
        canvas.heightProperty().bind(heightProperty());
        canvas.widthProperty().addListener((o, a, b) -> resized());
        canvas.heightProperty().addListener((o, a, b) -> resized());
        canvas.addEventHandler(ScrollEvent.SCROLL, e -> {
            zoomAt(Math.pow(1.25, e.getDeltaY() / 40), e.getX(), e.getY());
            e.consume();
        });
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            pressX = e.getX();
            pressY = e.getY();
            dragged = false;
        });
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, e -> {
            double dx = e.getX() - pressX;
            double dy = e.getY() - pressY;
            if (dragged || Math.hypot(dx, dy) > 3) {
                dragged = true;
                offX += dx;
                offY += dy;
                pressX = e.getX();
                pressY = e.getY();
                draw();
            }
        });
        canvas.addEventHandler(MouseEvent.MOUSE_CLICKED, e -> {
            if (!dragged && e.getClickCount() == 1) {
                int[] at = nonzeroAt(e.getX(), e.getY());
                if (at != null) {
                    onPick.accept(at[0], at[1]);
                }
            } else if (!dragged && e.getClickCount() == 2) {
                fit();
            }
        });
    }

    /** Shows {@code p}, its nonzeros coloured by {@code classes} (of the columns when {@code byColumn}, else the rows; null: one colour). */
    public void show(Pattern p, int[] classes, boolean byColumn) {
        this.pattern = p;
        this.classes = classes;
        this.byColumn = byColumn;
        this.marked = null;
        fitted = false;
        fit();
    }

    /** What a click on a nonzero does with it (row, column). */
    public void setOnPick(BiConsumer<Integer, Integer> pick) {
        onPick = pick;
    }

    /** Rings the entry (i, j) (null: none). */
    public void mark(int[] entry) {
        marked = entry;
        draw();
    }

    public Pattern pattern() {
        return pattern;
    }

    /** How many nonzeros the last drawing showed (all of them when the whole matrix is in view). */
    public int shownNonzeros() {
        return shown;
    }

    /** The colour of a color class. */
    public static Color classColor(int c) {
        return c < PALETTE.length ? Color.web(PALETTE[c]) : Color.hsb((c * 137.508) % 360, 0.65, 0.8);
    }

    /** Fitting fills the whole view, the entries stretched (else they stay square). */
    public void setStretch(boolean stretch) {
        this.stretch = stretch;
    }

    /** Fits the whole matrix in the view. */
    public void fit() {
        double w = getWidth();
        double h = getHeight();
        if (pattern == null || w <= 0 || h <= 0) {
            draw();
            return;
        }
        fitted = true;
        double[] s = fitScales(pattern.rows(), pattern.cols(), w, h, stretch);
        sx = s[0];
        sy = s[1];
        offX = (w - sx * pattern.cols()) / 2;
        offY = (h - sy * pattern.rows()) / 2;
        draw();
    }

    /**
     * The pixels per column and per row that fit a {@code rows x cols} matrix in {@code w x h}: square
     * entries, unless that leaves the matrix under a third of the view along its short side (a
     * 320 x 10 Jacobian was a 6-pixel sliver): then that side is stretched to fill the view, the
     * long one kept, so a tall thin matrix is scaled along its short side (zoom reads it).
     */
    static double[] fitScales(int rows, int cols, double w, double h, boolean stretch) {
        double sx = (w - 2) / Math.max(1, cols);
        double sy = (h - 2) / Math.max(1, rows);
        if (stretch) {
            return new double[] {sx, sy};
        }
        double square = Math.min(sx, sy);
        return new double[] {square * cols < (w - 2) / 3 ? sx : square, square * rows < (h - 2) / 3 ? sy : square};
    }

    public void zoomAt(double factor, double x, double y) {
        sx *= factor;
        sy *= factor;
        offX = x - (x - offX) * factor;
        offY = y - (y - offY) * factor;
        draw();
    }

    /** The centre of entry (i, j) in the view's pixels. */
    public double[] pixelOf(int i, int j) {
        return new double[] {offX + (j + 0.5) * sx, offY + (i + 0.5) * sy};
    }

    /** The nonzero under a pixel: the entry itself, or in a block the nonzero nearest its centre; null for none. */
    public int[] nonzeroAt(double x, double y) {
        if (pattern == null) {
            return null;
        }
        double stepX = Math.max(1, 1 / sx);
        double stepY = Math.max(1, 1 / sy);
        int i0 = (int) Math.floor((y - offY) / sy - (stepY - 1) / 2);
        int j0 = (int) Math.floor((x - offX) / sx - (stepX - 1) / 2);
        int ni = (int) Math.ceil(stepY);
        int nj = (int) Math.ceil(stepX);
        int[] best = null;
        double bestD = Double.MAX_VALUE;
        double ci = (y - offY) / sy;
        double cj = (x - offX) / sx;
        for (int i = Math.max(0, i0); i < Math.min(pattern.rows(), i0 + ni); i++) {
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                int j = pattern.column(k);
                if (j >= j0 && j < j0 + nj) {
                    double d = Math.hypot(i + 0.5 - ci, j + 0.5 - cj);
                    if (d < bestD) {
                        bestD = d;
                        best = new int[] {i, j};
                    }
                }
            }
        }
        return best;
    }

    /** Writes what the view shows as a PNG. */
    public void exportPng(Path file) throws IOException {
        WritableImage img = canvas.snapshot(null, null);
        javax.imageio.ImageIO.write(SwingFXUtils.fromFXImage(img, null), "png", file.toFile());
    }

    private void resized() {
        if (!fitted) {
            fit();
        } else {
            draw();
        }
    }

    private Color colorOf(int i, int j) {
        return classes == null ? MIXED : classColor(classes[byColumn ? j : i]);
    }

    private void draw() {
        GraphicsContext g = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        g.setFill(Color.WHITE);
        g.fillRect(0, 0, w, h);
        shown = 0;
        if (pattern == null || w <= 0 || h <= 0) {
            return;
        }
        int i0 = Math.max(0, (int) Math.floor(-offY / sy));
        int i1 = Math.min(pattern.rows(), (int) Math.ceil((h - offY) / sy));
        int j0 = Math.max(0, (int) Math.floor(-offX / sx));
        int j1 = Math.min(pattern.cols(), (int) Math.ceil((w - offX) / sx));
        if (sx >= 1 && sy >= 1) {
            double gapX = sx >= 4 ? 1 : 0;
            double gapY = sy >= 4 ? 1 : 0;
            for (int i = i0; i < i1; i++) {
                for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                    int j = pattern.column(k);
                    if (j >= j0 && j < j1) {
                        g.setFill(colorOf(i, j));
                        g.fillRect(offX + j * sx, offY + i * sy, Math.max(1, sx - gapX), Math.max(1, sy - gapY));
                        shown++;
                    }
                }
            }
        } else {
            drawBlocks(g, (int) Math.ceil(w), (int) Math.ceil(h), i0, i1, j0, j1);
        }
        g.setStroke(FRAME);
        g.setLineWidth(1);
        g.strokeRect(Math.floor(offX) + 0.5, Math.floor(offY) + 0.5, Math.max(1, pattern.cols() * sx), Math.max(1, pattern.rows() * sy));
        if (marked != null) {
            double[] c = pixelOf(marked[0], marked[1]);
            double r = Math.max(5, Math.max(sx, sy));
            g.setStroke(Color.web(io.gradscope.app.viewmodel.JacobianViewModel.PATH_EDGE));
            g.setLineWidth(2);
            g.strokeOval(c[0] - r, c[1] - r, 2 * r, 2 * r);
        }
    }

    /**
     * Each pixel a block of entries (along an axis with fewer pixels than entries): shaded by the
     * fraction of them that are nonzero, in their class's colour when they share one.
     */
    private void drawBlocks(GraphicsContext g, int w, int h, int i0, int i1, int j0, int j1) {
        int[] count = new int[w * h];
        int[] cls = new int[w * h];
        java.util.Arrays.fill(cls, -2);
        for (int i = i0; i < i1; i++) {
            int y0 = Math.max(0, (int) Math.floor(offY + i * sy));
            int y1 = Math.min(h, Math.max(y0 + 1, (int) Math.floor(offY + (i + 1) * sy)));
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                int j = pattern.column(k);
                if (j < j0 || j >= j1) {
                    continue;
                }
                int x0 = Math.max(0, (int) Math.floor(offX + j * sx));
                int x1 = Math.min(w, Math.max(x0 + 1, (int) Math.floor(offX + (j + 1) * sx)));
                int c = classes == null ? -1 : classes[byColumn ? j : i];
                for (int y = y0; y < y1; y++) {
                    for (int x = x0; x < x1; x++) {
                        int at = y * w + x;
                        count[at]++;
                        cls[at] = cls[at] == -2 || cls[at] == c ? c : -1;
                    }
                }
                shown++;
            }
        }
        double cells = (sx < 1 ? 1 / sx : 1) * (sy < 1 ? 1 / sy : 1);
        WritableImage img = new WritableImage(w, h);
        PixelWriter pw = img.getPixelWriter();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int at = y * w + x;
                if (count[at] == 0) {
                    pw.setColor(x, y, Color.WHITE);
                    continue;
                }
                // the shade grows with the fraction of nonzeros in the block, as its square root and
                // from 0.35 up: at its true fraction, a lone nonzero in a block of 100 would be invisible.
                double f = 0.35 + 0.65 * Math.sqrt(Math.min(1, count[at] / cells));
                Color c = cls[at] >= 0 ? classColor(cls[at]) : MIXED;
                pw.setColor(x, y, Color.WHITE.interpolate(c, f));
            }
        }
        g.drawImage(img, 0, 0);
    }
}
