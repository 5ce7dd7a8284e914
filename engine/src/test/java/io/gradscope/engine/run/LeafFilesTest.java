package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Leaves with {@code init="file:PATH.npy"}: values read relative to the program's folder, with positioned errors. */
class LeafFilesTest {
    @TempDir
    Path dir;

    private Path program(String text) throws IOException {
        Path p = dir.resolve("model.grad");
        Files.writeString(p, text);
        return p;
    }

    @Test
    void paramsInputsAndLabelsReadTheirFiles() throws IOException {
        Npy.write(Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2), dir.resolve("params/W.npy"));
        Npy.write(Tensor.of(new double[] {0.5, -1}, 2), dir.resolve("params/c.npy"));
        Npy.write(Tensor.ofLongs(new long[] {2, 0}, 2), dir.resolve("params/ids.npy"));
        Path p = program("W = param(3, 2, init=\"file:params/W.npy\")\nc = input(2, init=\"file:params/c.npy\")\n"
                + "ids = labels(2, classes=3, init=\"file:params/ids.npy\")\nloss = sum(embedding(ids, W) * c)\n");
        ProgramRun run = Program.load(p).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        // rows 2 and 0 of W: (5, 6) and (1, 2), times (0.5, -1)
        assertEquals(5 * 0.5 - 6 + 1 * 0.5 - 2, run.objective().item(), 1e-12);
        assertArrayEquals(new double[] {0.5, -1, 0, 0, 0.5, -1}, run.gradient("W").toDoubleArray(), 1e-12);
    }

    @Test
    void aGivenValueWinsOverTheFile() throws IOException {
        Npy.write(Tensor.of(new double[] {10, 20}, 2), dir.resolve("params/W.npy"));
        Path p = program("W = param(2, init=\"file:params/W.npy\")\nloss = sum(W)\n");
        ProgramRun run = Program.load(p).run(new RunOptions(DType.FLOAT64, 0, Map.of("W", Tensor.of(new double[] {1, 2}, 2))));
        assertEquals(3, run.objective().item(), 0);
    }

    @Test
    void aMissingFileIsAnErrorAtItsLeaf() throws IOException {
        Path p = program("x = input(2)\nW = param(2, init=\"file:params/W.npy\")\nloss = sum(x * W)\n");
        ProgramException e = assertThrows(ProgramException.class, () -> Program.load(p).check(DType.FLOAT32));
        assertEquals(p + ":2:5: error: 'W': cannot read its values file params/W.npy (" + dir.resolve("params/W.npy") + ")",
                e.getMessage());
    }

    @Test
    void aFileOfTheWrongShapeIsAnErrorAtItsLeaf() throws IOException {
        Npy.write(Tensor.of(new double[] {1, 2, 3}, 3), dir.resolve("params/W.npy"));
        Path p = program("W = param(2, init=\"file:params/W.npy\")\nloss = sum(W)\n");
        ProgramException e = assertThrows(ProgramException.class, () -> Program.load(p).run(RunOptions.defaults()));
        assertEquals(p + ":1:5: error: 'W': params/W.npy: shape [3] does not match the declared [2]", e.getMessage());
    }

    @Test
    void anInputTakesOnlyAFile() throws IOException {
        Path p = program("x = input(2, init=\"zeros\")\nloss = sum(x)\n");
        ProgramException e = assertThrows(ProgramException.class, () -> Program.load(p).check(DType.FLOAT32));
        assertEquals(p + ":1:5: error: input(): init takes a values file, init=\"file:PATH.npy\", not \"zeros\"", e.getMessage());
    }
}
