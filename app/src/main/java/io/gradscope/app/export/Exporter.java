package io.gradscope.app.export;

import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.trace.TraceJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.Node;

/**
 * The export commands: the graph as PNG (as drawn) or SVG (states, lit edges, collapsed groups), and
 * the last run's trace as JSON. Each says in the status line what it wrote, or why it could not.
 */
public final class Exporter {
    /** What can be exported. */
    public enum Format {
        PNG("graph.png", "PNG image", "*.png"), SVG("graph.svg", "SVG image", "*.svg"), TRACE_JSON("trace.json", "JSON", "*.json");

        /** A file name to suggest, what the file is, and its pattern (for a file chooser). */
        public final String fileName;
        public final String description;
        public final String pattern;

        Format(String fileName, String description, String pattern) {
            this.fileName = fileName;
            this.description = description;
            this.pattern = pattern;
        }
    }

    private final SessionViewModel vm;
    private final Node graphView;
    private final Function<String, String> styleOf;

    /** Exports what {@code graphView} draws; {@code styleOf} gives a drawn node's style by its key. */
    public Exporter(SessionViewModel vm, Node graphView, Function<String, String> styleOf) {
        this.vm = vm;
        this.graphView = graphView;
        this.styleOf = styleOf;
    }

    /** Writes {@code format} to {@code path}; false (and a status line saying why) when nothing was written. */
    public boolean export(Format format, Path path) {
        Sweep s = vm.sweep().recorded().get();
        if (s == null || vm.sweep().layout().get() == null) {
            vm.report("Nothing to export: run a program first");
            return false;
        }
        try {
            switch (format) {
                case PNG -> javax.imageio.ImageIO.write(SwingFXUtils.fromFXImage(graphView.snapshot(null, null), null), "png",
                        path.toFile());
                case SVG -> Files.writeString(path, SvgExport.svg(s.graph(), vm.sweep().layout().get(), styleOf,
                        s.activeEdges(vm.sweep().mode().get(), vm.sweep().cursor().get())), StandardCharsets.UTF_8);
                case TRACE_JSON -> {
                    try (var w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
                        TraceJson.write(s.run().trace(), w);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            vm.report("Cannot write " + path + ": " + e.getMessage());
            return false;
        }
        vm.report("Wrote " + path);
        return true;
    }
}
