package io.gradscope.app.view;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.nio.file.Path;
import java.util.function.Supplier;
import java.util.prefs.Preferences;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCombination;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * File, Run and View menus, recent files and the bundled examples. Each item is a view-model
 * command, an export, or a window action (save, quit, fit, zoom); file dialogs are asked here.
 * Items named after files show their names as they are: no mnemonic parsing, which ate the
 * underscore of "backprop_chain.grad".
 */
final class Menus {
    /** What the window does for the menus. */
    interface Actions {
        boolean save();

        boolean saveAs();

        void quit();

        /** Whether another file may replace the text (unsaved edits saved or discarded when asked). */
        boolean mayReplace();
    }

    private final SessionViewModel vm;
    private final Supplier<Window> window;
    private final Exporter exporter;
    private final MenuBar bar = new MenuBar();
    private final Menu recent = new Menu("Open Recent");
    private final Menu examples = new Menu("Open Example");
    private final RecentFiles recentFiles;
    private final Actions actions;

    Menus(SessionViewModel vm, GraphPanel graph, Exporter exporter, Supplier<Window> window, Actions actions, RecentFiles recentFiles) {
        this.vm = vm;
        this.window = window;
        this.exporter = exporter;
        this.recentFiles = recentFiles;
        this.actions = actions;
        Menu file = new Menu("File");
        MenuItem open = item("Open…", "Shortcut+O", this::openDialog);
        for (String ex : Examples.TOP) {
            examples.getItems().add(fileItem(ex + ".grad", replacing(() -> vm.openText(ex + ".grad", Examples.text(ex)))));
        }
        Menu course = new Menu("Course");
        for (String ex : Examples.COURSE) {
            course.getItems().add(fileItem(ex + ".grad", replacing(() -> vm.openText(ex + ".grad", Examples.text("course/" + ex)))));
        }
        Menu large = new Menu("Large");
        large.getItems().add(fileItem("residual_chain.grad (150 blocks, 753 nodes)",
                replacing(() -> vm.openText("residual_chain.grad", Examples.residualChain(150)))));
        examples.getItems().addAll(new SeparatorMenuItem(), course, large);
        MenuItem save = item("Save", "Shortcut+S", actions::save);
        MenuItem saveAs = item("Save As…", "Shortcut+Shift+S", actions::saveAs);
        MenuItem png = item("Export Graph as PNG…", null, () -> export(Exporter.Format.PNG));
        MenuItem svg = item("Export Graph as SVG…", null, () -> export(Exporter.Format.SVG));
        MenuItem json = item("Export Trace as JSON…", null, () -> export(Exporter.Format.TRACE_JSON));
        MenuItem quit = item("Quit", "Shortcut+Q", actions::quit);
        file.getItems().addAll(open, recent, examples, new SeparatorMenuItem(), save, saveAs, new SeparatorMenuItem(), png, svg, json,
                new SeparatorMenuItem(), quit);
        Menu run = new Menu("Run");
        MenuItem runItem = item("Run", "Shortcut+Enter", vm::run);
        MenuItem cancelItem = item("Cancel", null, vm::cancel);
        // As the tool bar's buttons: Cancel only while long work goes on (SessionViewModel#cancellable).
        runItem.disableProperty().bind(vm.running());
        cancelItem.disableProperty().bind(vm.cancellable().not());
        run.getItems().addAll(runItem, cancelItem);
        Menu view = new Menu("View");
        view.getItems().addAll(item("Fit to Window", "Shortcut+0", graph::fitAsked),
                item("Zoom In", "Shortcut+Equals", graph::zoomIn),
                item("Zoom Out", "Shortcut+Minus", graph::zoomOut),
                overviewItem(graph),
                new SeparatorMenuItem(),
                item("Collapse All Groups", null, vm.sweep()::collapseAll),
                item("Expand All Groups", null, vm.sweep()::expandAll),
                item("Fold Repeats", null, vm.sweep()::foldRepeats));
        bar.getMenus().addAll(file, run, view);
        // A file opened or saved, or a model opened, goes to the top of Open Recent.
        javafx.beans.value.ChangeListener<Path> toRecent = (o, a, b) -> {
            if (b != null) {
                recentFiles.add(b);
                refreshRecent();
            }
        };
        vm.file().addListener(toRecent);
        vm.model().addListener(toRecent);
        refreshRecent();
    }

    /** Open Recent kept in the user's preferences. */
    static RecentFiles recentInPreferences() {
        Preferences prefs = Preferences.userNodeForPackage(Menus.class);
        return new RecentFiles(() -> prefs.get("recent", ""), s -> prefs.put("recent", s));
    }

    MenuBar bar() {
        return bar;
    }

    Menu recentMenu() {
        return recent;
    }

    Menu examplesMenu() {
        return examples;
    }

    private static MenuItem item(String text, String keys, Runnable action) {
        MenuItem m = new MenuItem(text);
        if (keys != null) {
            m.setAccelerator(KeyCombination.keyCombination(keys));
        }
        m.setOnAction(e -> action.run());
        return m;
    }

    /** View → Overview Map: shows or hides the map in the graph's corner, for as long as the window is open. */
    private static MenuItem overviewItem(GraphPanel graph) {
        javafx.scene.control.CheckMenuItem m = new javafx.scene.control.CheckMenuItem("Overview Map");
        m.setId("overview-toggle");
        m.selectedProperty().bindBidirectional(graph.overviewShown());
        return m;
    }

    /** An item named after a file: its name shown as it is. */
    private static MenuItem fileItem(String text, Runnable action) {
        MenuItem m = item(text, null, action);
        m.setMnemonicParsing(false);
        return m;
    }

    /** An action that replaces the text: run once unsaved edits are saved or discarded. */
    private Runnable replacing(Runnable open) {
        return () -> {
            if (actions.mayReplace()) {
                open.run();
            }
        };
    }

    private void openDialog() {
        FileChooser fc = new FileChooser();
        fc.setTitle("Open a .grad program or an ONNX model");
        fc.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("Programs and ONNX models", "*.grad", "*.onnx"),
                new FileChooser.ExtensionFilter(".grad programs", "*.grad"), new FileChooser.ExtensionFilter("ONNX models", "*.onnx"));
        fc.setInitialDirectory(vm.dialogFolder().toFile());
        var f = fc.showOpenDialog(window.get());
        if (f != null && actions.mayReplace()) {
            vm.open(f.toPath());
        }
    }

    private void export(Exporter.Format format) {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(format.fileNameFor(vm.fileName().get()));
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(format.description, format.pattern));
        fc.setInitialDirectory(vm.dialogFolder().toFile());
        var f = fc.showSaveDialog(window.get());
        if (f != null) {
            exporter.export(format, f.toPath());
        }
    }

    private void refreshRecent() {
        recent.getItems().clear();
        for (Path p : recentFiles.list()) {
            recent.getItems().add(fileItem(p.toString(), replacing(() -> vm.open(p))));
        }
        recent.setDisable(recent.getItems().isEmpty());
    }
}
