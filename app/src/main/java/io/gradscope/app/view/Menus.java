package io.gradscope.app.view;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.prefs.Preferences;
import javafx.application.Platform;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCombination;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/** File, Run and View menus, recent files (kept in user preferences) and the bundled examples. */
final class Menus {
    static final List<String> EXAMPLES = List.of("backprop_chain", "mlp", "softmax", "layernorm", "rmsnorm",
            "causal_attention", "transformer_block", "residual_checkpoint");
    private static final int RECENT = 8;

    private final MainWindow w;
    private final MenuBar bar = new MenuBar();
    private final Menu recent = new Menu("Open Recent");
    private final Preferences prefs = Preferences.userNodeForPackage(Menus.class);

    Menus(MainWindow w) {
        this.w = w;
        Menu file = new Menu("File");
        MenuItem open = item("Open…", "Shortcut+O", this::openDialog);
        Menu examples = new Menu("Open Example");
        for (String ex : EXAMPLES) {
            examples.getItems().add(item(ex + ".grad", null, () -> w.openText(ex + ".grad", example(ex))));
        }
        MenuItem save = item("Save", "Shortcut+S", w::save);
        MenuItem saveAs = item("Save As…", "Shortcut+Shift+S", this::saveAs);
        MenuItem png = item("Export Graph as PNG…", null, () -> export("graph.png", "PNG image", "*.png"));
        MenuItem svg = item("Export Graph as SVG…", null, () -> export("graph.svg", "SVG image", "*.svg"));
        MenuItem json = item("Export Trace as JSON…", null, () -> export("trace.json", "JSON", "*.json"));
        MenuItem quit = item("Quit", "Shortcut+Q", Platform::exit);
        file.getItems().addAll(open, recent, examples, new SeparatorMenuItem(), save, saveAs, new SeparatorMenuItem(), png, svg, json,
                new SeparatorMenuItem(), quit);
        Menu run = new Menu("Run");
        run.getItems().addAll(item("Run", "Shortcut+Enter", w::run), item("Cancel", null, w::cancel));
        Menu view = new Menu("View");
        view.getItems().addAll(item("Fit to Window", "Shortcut+0", () -> w.graphPanel().fit()),
                item("Zoom In", "Shortcut+Equals", () -> w.graphPanel().zoom(0.8)),
                item("Zoom Out", "Shortcut+Minus", () -> w.graphPanel().zoom(1.25)),
                new SeparatorMenuItem(),
                item("Collapse All Groups", null, () -> w.setAllGroupsCollapsed(true)),
                item("Expand All Groups", null, () -> w.setAllGroupsCollapsed(false)));
        bar.getMenus().addAll(file, run, view);
        refreshRecent();
    }

    MenuBar bar() {
        return bar;
    }

    private static MenuItem item(String text, String keys, Runnable action) {
        MenuItem m = new MenuItem(text);
        if (keys != null) {
            m.setAccelerator(KeyCombination.keyCombination(keys));
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    /** The text of a bundled example. */
    static String example(String name) {
        try (InputStream in = Menus.class.getResourceAsStream("/examples/" + name + ".grad")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("example " + name + " is missing", e);
        }
    }

    private Window window() {
        return w.getScene() == null ? null : w.getScene().getWindow();
    }

    private void openDialog() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open a .grad program");
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(".grad programs", "*.grad"));
        var f = fc.showOpenDialog(window());
        if (f != null) {
            w.open(f.toPath());
        }
    }

    void saveAs() {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(w.viewModel().fileName().get());
        var f = fc.showSaveDialog(window());
        if (f != null) {
            w.saveTo(f.toPath());
            remember(f.toPath());
        }
    }

    private void export(String name, String what, String pattern) {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(name);
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(what, pattern));
        var f = fc.showSaveDialog(window());
        if (f == null) {
            return;
        }
        try {
            if (pattern.equals("*.png")) {
                w.exportPng(f.toPath());
            } else if (pattern.equals("*.svg")) {
                w.exportSvg(f.toPath());
            } else {
                w.exportTrace(f.toPath());
            }
        } catch (IOException e) {
            w.statusBar().setText("Cannot write " + f + ": " + e.getMessage());
        }
    }

    void remember(Path p) {
        List<String> list = recentPaths();
        String s = p.toAbsolutePath().toString();
        list.remove(s);
        list.add(0, s);
        while (list.size() > RECENT) {
            list.remove(list.size() - 1);
        }
        prefs.put("recent", String.join("\n", list));
        refreshRecent();
    }

    private List<String> recentPaths() {
        List<String> out = new ArrayList<>();
        for (String s : prefs.get("recent", "").split("\n")) {
            if (!s.isBlank()) {
                out.add(s);
            }
        }
        return out;
    }

    private void refreshRecent() {
        recent.getItems().clear();
        for (String s : recentPaths()) {
            Path p = Path.of(s);
            if (Files.exists(p)) {
                recent.getItems().add(item(s, null, () -> w.open(p)));
            }
        }
        recent.setDisable(recent.getItems().isEmpty());
    }
}
