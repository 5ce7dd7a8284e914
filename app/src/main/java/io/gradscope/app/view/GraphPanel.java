package io.gradscope.app.view;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.draw.FitTarget;
import io.gradscope.app.draw.GraphPainter;
import io.gradscope.app.draw.GraphScene;
import io.gradscope.app.draw.Looks;
import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.viewmodel.Decorator;
import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import java.util.HashSet;
import java.util.Set;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.canvas.Canvas;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Pane;
import javafx.scene.layout.StackPane;

/**
 * The computation graph, drawn on a canvas at the positions the layout gave it (see
 * {@link GraphPainter}), with an overview map in the corner. It restyles only what a step changed,
 * redraws at most once a frame, and turns the mouse into view moves (drag: pan; wheel: zoom about
 * the pointer) and commands (click: select; double-click a group: collapse or expand it).
 */
public final class GraphPanel extends StackPane {
    /** Each zoom step (+, −, Ctrl+=, Ctrl+−) scales the view by this. */
    static final double ZOOM_STEP = 1.25;
    /** The overview map's distance from the corner, in pixels. */
    static final double MAP_MARGIN = 10;

    private final SweepViewModel vm;
    private final Canvas canvas = new Canvas();
    private final Camera camera = new Camera();
    private final OverviewMap map;
    private GraphScene scene;
    private Sweep drawnRun;
    private boolean redrawPending;
    /** The pixels a step changed (x0, y0, x1, y1), drawn alone when nothing else moved; null: draw all. */
    private double[] dirty;
    private boolean whole = true;
    private boolean fitPending;
    /** The section the user opened last in this run (the innermost, when one act opened several), or null. */
    private String lastOpened;
    /** What the user's Fit showed last when it was a part of the graph (the opened section), or null. */
    private FitTarget.Shown sectionFit;
    private int frames;
    private double pressX;
    private double pressY;
    private boolean dragged;
    private final java.util.List<Decorator> decorators = new java.util.ArrayList<>();
    /** The step whose node the view last followed (run, pass, cursor, the key drawn for it), or null. */
    private StepAt followed;
    /**
     * Whether the user zoomed out by hand (wheel, −) to where the step's node has no label: a view
     * over the whole sweep, which steps then pan and do not zoom back in, until Fit or a zoom in.
     */
    private boolean overviewByHand;
    /** The corner the overview map sits in ({@link MapCorner}). */
    private Pos mapCorner = Pos.BOTTOM_RIGHT;

    /**
     * A step as drawn: which run, pass and cursor, and the node drawn for it (its folded section's,
     * then its own once the step opened the section: followed anew).
     */
    private record StepAt(Sweep run, Sweep.Mode mode, int cursor, String key) {
    }

    public GraphPanel(SweepViewModel vm) {
        this.vm = vm;
        setId("graph");
        setMinSize(200, 200);
        Pane surface = new Pane(canvas);
        canvas.widthProperty().bind(surface.widthProperty());
        canvas.heightProperty().bind(surface.heightProperty());
        map = new OverviewMap(camera, this::redraw);
        map.enabled().addListener((o, a, b) -> redraw());
        StackPane.setAlignment(map, mapCorner);
        StackPane.setMargin(map, new Insets(MAP_MARGIN));
        getChildren().addAll(surface, map);
        canvas.widthProperty().addListener((o, a, b) -> resized());
        canvas.heightProperty().addListener((o, a, b) -> resized());
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, e -> {
            pressX = e.getX();
            pressY = e.getY();
            dragged = false;
        });
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, this::drag);
        canvas.addEventHandler(MouseEvent.MOUSE_CLICKED, this::click);
        canvas.addEventHandler(ScrollEvent.SCROLL, e -> {
            camera.zoomAt(Math.pow(ZOOM_STEP, e.getDeltaY() / 40), e.getX(), e.getY());
            zoomedByHand(e.getDeltaY() > 0);
            keepFollowedClear();
            redraw();
            e.consume();
        });
        vm.layout().addListener((o, a, b) -> {
            if (b != null) {
                show(a, b);
            } else {
                // The run was let go (another text opened): nothing of it stays drawn.
                scene = null;
                drawnRun = null;
                map.setScene(null);
                redraw();
            }
        });
        vm.graphChange().addListener((o, a, change) -> restyle(change));
        vm.inspection().addListener((o, a, b) -> followCurrent());
        // Find: the node found, once drawn (the sections holding it opened), centred where it can be read.
        vm.found().addListener((o, a, key) -> {
            if (key != null) {
                reveal(key);
            }
        });
    }

    /** The decorators painted over the sweep's looks, in order (an export draws them too). */
    public java.util.List<Decorator> decorators() {
        return java.util.List.copyOf(decorators);
    }

    /**
     * Adds a decorator: its paint goes over the sweep's looks (after those added before it), and
     * the graph restyles whenever its revision changes.
     */
    public void addDecorator(Decorator d) {
        decorators.add(d);
        if (scene != null) {
            scene.setDecorators(decorators);
        }
        d.revision().addListener((o, a, b) -> restyleAll());
        restyleAll();
    }

    /** Restyles every drawn node and edge (after a decoration changed). */
    public void restyleAll() {
        GraphStates states = vm.graphStates();
        if (states != null && scene != null) {
            scene.restyle(states, states.all());
            redraw();
        }
    }

    public Camera camera() {
        return camera;
    }

    /** What is drawn (null before the first run). */
    public GraphScene scene() {
        return scene;
    }

    public GraphLayout.Result currentLayout() {
        return scene == null ? null : scene.layout();
    }

    /** The look a drawn node has now (as a style string), or null. */
    public String styleOf(String key) {
        Looks.NodeLook look = scene == null ? null : scene.look(key);
        return look == null ? null : look.toString();
    }

    /** A drawn node's box in the canvas's pixels (x, y, w, h), or null. */
    public double[] boxOnScreen(String key) {
        int i = scene == null ? -1 : scene.indexOf(key);
        if (i < 0) {
            return null;
        }
        double[] b = scene.box(i);
        return new double[] {camera.toPxX(b[0]), camera.toPxY(b[1]), b[2] * camera.scale(), b[3] * camera.scale()};
    }

    /** The drawn node at a point of the canvas (pixels), or null. */
    public String keyAt(double x, double y) {
        return scene == null ? null : scene.nodeAt(camera.toLayoutX(x), camera.toLayoutY(y));
    }

    public Canvas canvas() {
        return canvas;
    }

    OverviewMap overview() {
        return map;
    }

    /** How many frames have been drawn (tests). */
    public int frames() {
        return frames;
    }

    /** Shows the whole graph. */
    public void fit() {
        if (scene == null) {
            return;
        }
        if (canvas.getWidth() <= 0 || canvas.getHeight() <= 0) {
            fitPending = true;
            return;
        }
        camera.resize(canvas.getWidth(), canvas.getHeight());
        camera.fit(scene.layout().bounds());
        overviewByHand = false;
        redraw();
    }

    /** The user's Fit (the button, View → Fit to Window, the 0 key): the whole graph, or where the user works when that is unreadable ({@link FitTarget}). */
    public void fitAsked() {
        if (scene == null || canvas.getWidth() <= 0 || canvas.getHeight() <= 0) {
            fit();
            return;
        }
        camera.resize(canvas.getWidth(), canvas.getHeight());
        fitChosen();
        redraw();
    }

    /** Fits what {@link FitTarget} chooses now (Fit again, from a view at Fit, shows everything). */
    private void fitChosen() {
        // A part of the graph goes beside the overview map, which shows while part is out of view.
        double[] corner = map.enabled().get() ? new double[] {map.getPrefWidth() + MAP_MARGIN, map.getPrefHeight() + MAP_MARGIN} : null;
        FitTarget.Shown shown = FitTarget.choose(camera, scene.layout(), boxOf(vm.keyOf(vm.inspectedVertex())), lastOpened, corner);
        camera.fit(shown.target(), shown.area());
        sectionFit = shown.target().equals(scene.layout().bounds()) ? null : shown;
        overviewByHand = false;
    }

    public void zoomIn() {
        camera.zoom(ZOOM_STEP);
        zoomedByHand(true);
        keepFollowedClear();
        redraw();
    }

    public void zoomOut() {
        camera.zoom(1 / ZOOM_STEP);
        zoomedByHand(false);
        keepFollowedClear();
        redraw();
    }

    /** Whether the overview map is shown while part of the graph is out of view (View → Overview Map; for the session). */
    public javafx.beans.property.BooleanProperty overviewShown() {
        return map.enabled();
    }

    /** The scale below which a found node's label is too small to read (Find zooms in to 1:1). */
    static final double READABLE_SCALE = 0.75;

    /**
     * Shows a drawn node the user asked for by name: centred, and at 1:1 when the view was zoomed out
     * so far that its label could not be read (at Fit on a large graph); a closer view is kept.
     */
    public void reveal(String key) {
        if (scene != null && key != null && scene.indexOf(key) >= 0 && camera.scale() < READABLE_SCALE) {
            camera.setScale(1);
            overviewByHand = false;
        }
        centerOn(key);
    }

    /** Centres the view on a drawn node (moved out from under the overview map, should it fall there). */
    public void centerOn(String key) {
        GraphLayout.Box b = boxOf(key);
        if (b != null) {
            camera.centerOn(b.cx(), b.cy());
            ViewKeeping.keepClearOfMap(camera, b, mapShownSize());
            redraw();
        }
    }

    /** Draws everything in the next frame (once, however many changes come before it). */
    public void redraw() {
        whole = true;
        schedule();
    }

    private void schedule() {
        if (!redrawPending) {
            redrawPending = true;
            Platform.runLater(this::drawNow);
        }
    }

    /** Redraws, in the next frame, the pixels of a layout area (a step's nodes and edges). */
    private void redraw(GraphLayout.Box b) {
        double m = 14; // strokes, arrowheads
        double[] px = {camera.toPxX(b.x()) - m, camera.toPxY(b.y()) - m, camera.toPxX(b.x() + b.w()) + m, camera.toPxY(b.y() + b.h()) + m};
        if (dirty == null) {
            dirty = px;
        } else {
            dirty = new double[] {Math.min(dirty[0], px[0]), Math.min(dirty[1], px[1]), Math.max(dirty[2], px[2]), Math.max(dirty[3], px[3])};
        }
        schedule();
    }

    /** Draws now: everything, or only what a step changed. */
    public void drawNow() {
        redrawPending = false;
        camera.resize(canvas.getWidth(), canvas.getHeight());
        var g = canvas.getGraphicsContext2D();
        double[] region = whole ? null : dirty;
        whole = false;
        dirty = null;
        if (scene == null || canvas.getWidth() <= 0 || canvas.getHeight() <= 0) {
            g.setFill(FxPen.color(Looks.BACKGROUND));
            g.fillRect(0, 0, canvas.getWidth(), canvas.getHeight());
            return;
        }
        GraphPainter.View view = GraphPainter.View.of(camera);
        if (region == null) {
            GraphPainter.paint(new FxPen(g), scene, view);
            map.update();
            placeMap();
        } else {
            // Only the part a step changed: clipped, so what lies around it is left as drawn.
            GraphPainter.View part = view.clip(Math.floor(region[0]), Math.floor(region[1]), Math.ceil(region[2]), Math.ceil(region[3]));
            if (part.x1() <= part.x0() || part.y1() <= part.y0()) {
                return;
            }
            g.save();
            g.beginPath();
            g.rect(part.x0(), part.y0(), part.x1() - part.x0(), part.y1() - part.y0());
            g.closePath();
            g.clip();
            GraphPainter.paint(new FxPen(g), scene, part);
            g.restore();
        }
        frames++;
    }

    /**
     * A resize keeps the graph whole if it was (a strip above it, a panel under it, a smaller window),
     * and a view at Fit at Fit: the comparison's legend strip, gone when a run replaced it, left the
     * new run fitted to the smaller area, its labels cut to their names ("loss" for "loss = sum []").
     */
    private void resized() {
        boolean whole = scene != null && camera.shows(scene.layout().bounds());
        boolean fitted = scene != null && camera.isFitTo(scene.layout().bounds());
        // A view at the section Fit showed stays at Fit too: fitted again to the new size (the view kept its
        // scale and place, the section's title and left part cut at the pane's edges).
        boolean atSection = scene != null && sectionFit != null && camera.isFitTo(sectionFit.target(), sectionFit.area());
        camera.resize(canvas.getWidth(), canvas.getHeight());
        map.setPane(canvas.getWidth(), canvas.getHeight());
        if (atSection && canvas.getWidth() > 0 && canvas.getHeight() > 0) {
            // From the whole graph's fit, so that the choice is Fit's, never "Fit again shows everything".
            camera.fit(scene.layout().bounds());
            fitChosen();
            redraw();
            return;
        }
        if (whole && !camera.shows(scene.layout().bounds()) || fitted && !camera.isFitTo(scene.layout().bounds())) {
            fitPending = true;
        }
        if (fitPending && canvas.getWidth() > 0 && canvas.getHeight() > 0) {
            fitPending = false;
            fit();
        }
        redraw();
    }

    /** Draws a new layout: a new run is fitted; a group collapsed or expanded keeps its place on screen. */
    private void show(GraphLayout.Result before, GraphLayout.Result after) {
        GraphScene old = scene;
        scene = new GraphScene(vm.recorded().get().graph(), after);
        scene.setDecorators(decorators);
        GraphStates states = vm.graphStates();
        if (states != null) {
            scene.restyle(states, states.all());
        }
        map.setScene(scene);
        boolean sameRun = old != null && drawnRun == vm.recorded().get() && before != null;
        drawnRun = vm.recorded().get();
        boolean refit = vm.takeFitRequest();
        if (!sameRun || refit) {
            lastOpened = null;
            fit();
            if (!fitPending) {
                return;
            }
        } else {
            ViewKeeping.keepInPlace(camera, before, after);
            // The container that holds the node the user follows opened (or closed): that node, drawn
            // anew, is kept in view (the view stayed on the opened section's first part).
            int followed = vm.inspectedVertex();
            Set<String> changed = ViewKeeping.changed(before, after);
            noteOpened(changed, after);
            if (followed >= 0 && after.source().hierarchy().chain(followed).stream().anyMatch(changed::contains)) {
                if (followed == vm.currentVertex()) {
                    followStep();
                } else {
                    keepInView(vm.keyOf(followed));
                }
            }
        }
        redraw();
    }

    private void restyle(GraphStates.Change change) {
        GraphStates states = vm.graphStates();
        if (change != null && states != null && scene != null) {
            scene.restyle(states, change);
            GraphLayout.Box b = scene.bounds(change);
            if (b != null) {
                redraw(b);
            }
        }
    }

    private void noteOpened(Set<String> changed, GraphLayout.Result after) {
        double area = Double.MAX_VALUE;
        for (GraphLayout.GroupBox g : after.groups()) {
            double a = g.box().w() * g.box().h();
            if (changed.contains(g.path()) && a < area) {
                area = a;
                lastOpened = g.path();
            }
        }
    }

    /** Keeps the current step's node in view while stepping. */
    private void followCurrent() {
        if (followStep()) {
            redraw();
        }
    }

    /**
     * Keeps the current step's node in view (clear of the overview map); on a step not followed yet
     * whose node is drawn too small to carry a label (at Fit on a large graph, a speck), zooms in to
     * 1:1 centred on it, as Find does. A view where it can be read keeps its scale, and so does the
     * user's own zoom out over the sweep; true when the view moved.
     */
    private boolean followStep() {
        String key = vm.keyOf(vm.currentVertex());
        int i = scene == null || key == null ? -1 : scene.indexOf(key);
        if (i < 0 || canvas.getWidth() <= 0) {
            return false;
        }
        StepAt step = new StepAt(vm.recorded().get(), vm.mode().get(), vm.cursor().get(), key);
        boolean newStep = !step.equals(followed);
        followed = step;
        if (newStep && !overviewByHand && camera.scale() < 1 && !labelled(i)) {
            camera.setScale(1);
            centerOn(key);
            return true;
        }
        return keepInView(key);
    }

    /** Whether drawn node {@code i} gets a label at the view's scale. */
    private boolean labelled(int i) {
        return GraphPainter.labelled(new FxPen(canvas.getGraphicsContext2D()), scene, i, camera.scale());
    }

    /**
     * After the user's zoom: a zoom out that leaves the step's node without a label is a view over the
     * sweep the steps keep; a zoom in ends it.
     */
    private void zoomedByHand(boolean in) {
        int i = scene == null ? -1 : scene.indexOf(vm.keyOf(vm.currentVertex()));
        overviewByHand = !in && (overviewByHand || i >= 0 && !labelled(i));
    }

    /** Pans so that a drawn node is in view and clear of the overview map (while it is shown); true when it moved. */
    private boolean keepInView(String key) {
        GraphLayout.Box box = boxOf(key);
        return box != null && canvas.getWidth() > 0 && ViewKeeping.keepInView(camera, box, mapShownSize());
    }

    /**
     * After a zoom: the node the user follows (selected, else the current step's), when in view, is
     * moved out from under the overview map.
     */
    private void keepFollowedClear() {
        GraphLayout.Box box = boxOf(vm.keyOf(vm.inspectedVertex()));
        if (box != null && camera.shows(box)) {
            ViewKeeping.keepClearOfMap(camera, box, mapShownSize());
        }
    }

    /** A drawn node's box in layout units, or null. */
    private GraphLayout.Box boxOf(String key) {
        int i = scene == null || key == null ? -1 : scene.indexOf(key);
        if (i < 0) {
            return null;
        }
        double[] b = scene.box(i);
        return new GraphLayout.Box(b[0], b[1], b[2], b[3]);
    }

    /**
     * The overview map's size (width, height in pixels) when it will be shown after this move (the user
     * shows it, and part of the graph is out of view); null when it will not.
     */
    private double[] mapShownSize() {
        return scene == null || !map.enabled().get() || camera.shows(scene.layout().bounds()) ? null
                : MapCorner.rect(mapCorner, camera.width(), camera.height(), map.getPrefWidth(), map.getPrefHeight());
    }

    /** Puts the shown map in the corner where it covers no drawn node ({@link MapCorner}). */
    private void placeMap() {
        if (!map.isVisible()) {
            return;
        }
        Pos corner = MapCorner.choose(camera, scene, map.getPrefWidth(), map.getPrefHeight(), mapCorner);
        if (corner != mapCorner) {
            mapCorner = corner;
            StackPane.setAlignment(map, corner);
            layout(); // there now, so that what keeps nodes clear of it and its bounds agree at once
        }
    }

    private void drag(MouseEvent e) {
        if (e.getButton() != MouseButton.PRIMARY && e.getButton() != MouseButton.MIDDLE) {
            return;
        }
        camera.panBy(e.getX() - pressX, e.getY() - pressY);
        pressX = e.getX();
        pressY = e.getY();
        dragged = true;
        redraw();
    }

    private void click(MouseEvent e) {
        if (dragged || scene == null) {
            return;
        }
        if (e.getButton() == MouseButton.SECONDARY) {
            return;
        }
        double x = camera.toLayoutX(e.getX());
        double y = camera.toLayoutY(e.getY());
        String key = scene.nodeAt(x, y);
        if (e.getClickCount() == 2) {
            if (key != null && key.startsWith("g:")) {
                vm.toggleGroup(key.substring(2));
            } else if (key == null) {
                GraphLayout.GroupBox g = scene.groupAt(x, y);
                if (g != null) {
                    vm.toggleGroup(g.path());
                }
            }
            return;
        }
        requestFocus();
        vm.selectKey(key);
    }
}
