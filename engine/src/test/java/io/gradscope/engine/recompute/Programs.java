package io.gradscope.engine.recompute;

import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/** The programs the memory tests run: every example and every conformance case's program. */
final class Programs {
    private Programs() {
    }

    static Stream<Path> all() {
        try (Stream<Path> ex = Files.walk(Path.of("../assets/examples"), 2);
             Stream<Path> conf = Files.walk(Path.of("src/test/resources/conformance"), 2)) {
            return Stream.concat(ex.filter(p -> p.toString().endsWith(".grad")).sorted().toList().stream(),
                    conf.filter(p -> p.toString().endsWith(".grad")).sorted().toList().stream()).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ProgramRun run(Path file, DType dt, RematPolicy policy, boolean retain) {
        return Program.load(file).run(new RunOptions(dt, 0, Map.of()), new MemoryOptions(policy, retain), (a, b, c) -> { });
    }

    static String name(Path p) {
        return p.getParent().getFileName() + "/" + p.getFileName();
    }
}
