package io.gradscope.app.view;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.prefs.Preferences;
import javafx.application.Platform;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCombination;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * File, Run and View menus, recent files (kept in user preferences) and the bundled examples. Each
 * item is a view-model command, an export, or a view action (fit, zoom); file dialogs are asked here.
 */
final class Menus {
    static final List<String> EXAMPLES = List.of("backprop_chain", "mlp", "softmax", "layernorm", "rmsnorm",
            "causal_attention", "transformer_block", "residual_checkpoint");
    private static final int RECENT = 8;

    private final SessionViewModel vm;
    private final Supplier<Window> window;
    private final Exporter exporter;
    private final MenuBar bar = new MenuBar();
    private final Menu recent = new Menu("Open Recent");
    private final Preferences prefs = Preferences.userNodeForPackage(Menus.class);

    Menus(SessionViewModel vm, GraphPanel graph, Exporter exporter, Supplier<Window> window) {
        this.vm = vm;
        this.window = window;
        this.exporter = exporter;
        Menu file = new Menu("File");
        MenuItem open = item("Open…", "Shortcut+O", this::openDialog);
        Menu examples = new Menu("Open Example");
        for (String ex : EXAMPLES) {
            examples.getItems().add(item(ex + ".grad", null, () -> vm.openText(ex + ".grad", example(ex))));
        }
        MenuItem save = item("Save", "Shortcut+S", () -> {
            if (!vm.save()) {
                saveAs();
            }
        });
        MenuItem saveAs = item("Save As…", "Shortcut+Shift+S", this::saveAs);
        MenuItem png = item("Export Graph as PNG…", null, () -> export(Exporter.Format.PNG));
        MenuItem svg = item("Export Graph as SVG…", null, () -> export(Exporter.Format.SVG));
        MenuItem json = item("Export Trace as JSON…", null, () -> export(Exporter.Format.TRACE_JSON));
        MenuItem quit = item("Quit", "Shortcut+Q", Platform::exit);
        file.getItems().addAll(open, recent, examples, new SeparatorMenuItem(), save, saveAs, new SeparatorMenuItem(), png, svg, json,
                new SeparatorMenuItem(), quit);
        Menu run = new Menu("Run");
        run.getItems().addAll(item("Run", "Shortcut+Enter", vm::run), item("Cancel", null, vm::cancel));
        Menu view = new Menu("View");
        view.getItems().addAll(item("Fit to Window", "Shortcut+0", graph::fit),
                item("Zoom In", "Shortcut+Equals", graph::zoomIn),
                item("Zoom Out", "Shortcut+Minus", graph::zoomOut),
                new SeparatorMenuItem(),
                item("Collapse All Groups", null, vm.sweep()::collapseAll),
                item("Expand All Groups", null, vm.sweep()::expandAll));
        bar.getMenus().addAll(file, run, view);
        // A file opened or saved goes to the top of Open Recent.
        vm.file().addListener((o, a, b) -> {
            if (b != null) {
                remember(b);
            }
        });
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

    private void openDialog() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open a .grad program");
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(".grad programs", "*.grad"));
        var f = fc.showOpenDialog(window.get());
        if (f != null) {
            vm.open(f.toPath());
        }
    }

    private void saveAs() {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(vm.fileName().get());
        var f = fc.showSaveDialog(window.get());
        if (f != null) {
            vm.saveTo(f.toPath());
        }
    }

    private void export(Exporter.Format format) {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(format.fileName);
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(format.description, format.pattern));
        var f = fc.showSaveDialog(window.get());
        if (f != null) {
            exporter.export(format, f.toPath());
        }
    }

    private void remember(Path p) {
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
                recent.getItems().add(item(s, null, () -> vm.open(p)));
            }
        }
        recent.setDisable(recent.getItems().isEmpty());
    }
}
