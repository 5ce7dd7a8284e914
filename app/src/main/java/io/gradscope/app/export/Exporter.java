package io.gradscope.app.export;

import io.gradscope.app.draw.AwtPen;
import io.gradscope.app.draw.GraphScene;
import io.gradscope.app.draw.SvgPen;
import io.gradscope.app.viewmodel.Decorator;
import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.trace.TraceJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * The export commands: the whole graph as PNG or SVG (as drawn: the sweep's states, lit edges,
 * collapsed groups, the overlay on screen; in the screen's colours, at a readable scale whatever the view), and the last
 * run's trace as JSON. Each says in the status line what it wrote, or why it could not.
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

        /** The name to suggest for the export of {@code program} ("resnet18.onnx" → "resnet18.png"); the plain name without one. */
        public String fileNameFor(String program) {
            if (program == null || program.isBlank()) {
                return fileName;
            }
            String stem = program.replaceAll("\\.[^.]*$", "");
            return this == TRACE_JSON ? stem + ".trace.json" : stem + fileName.substring(fileName.lastIndexOf('.'));
        }
    }

    private final SessionViewModel vm;
    private final Supplier<List<Decorator>> decorators;

    public Exporter(SessionViewModel vm) {
        this(vm, List::of);
    }

    /** {@code decorators}: the overlays painted over the graph on screen (a colour by gradient norm), exported with it. */
    public Exporter(SessionViewModel vm, Supplier<List<Decorator>> decorators) {
        this.vm = vm;
        this.decorators = decorators;
    }

    /** The graph as drawn now: the layout with every node's and edge's look at the cursor. */
    public GraphScene scene() {
        Sweep s = vm.sweep().recorded().get();
        GraphScene scene = new GraphScene(s.graph(), vm.sweep().layout().get());
        scene.setDecorators(decorators.get());
        GraphStates states = vm.sweep().graphStates();
        if (states != null) {
            scene.restyle(states, states.all());
        }
        return scene;
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
                case PNG -> AwtPen.writePng(scene(), path);
                case SVG -> Files.writeString(path, SvgPen.svg(scene()), StandardCharsets.UTF_8);
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
