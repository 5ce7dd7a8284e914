package io.gradscope.engine.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MatrixMarketTest {
    @TempDir
    Path tmp;

    @Test
    void patternsAndRealMatricesReadBackEqual() throws IOException {
        Random r = new Random(3);
        double[] dense = new double[6 * 9];
        for (int i = 0; i < dense.length; i++) {
            dense[i] = r.nextDouble() < 0.3 ? r.nextGaussian() * Math.pow(10, r.nextInt(20) - 10) : 0;
        }
        SparseMatrix m = SparseMatrix.fromDense(dense, 6, 9);
        Path f = tmp.resolve("m.mtx");
        MatrixMarket.writeReal(m, f);
        MatrixMarket.Matrix back = MatrixMarket.read(f);
        assertEquals(m.pattern(), back.pattern());
        assertArrayEquals(m.values(), back.values(), 0.0, "17 significant digits read back exactly");
        MatrixMarket.writePattern(m.pattern(), f, false);
        MatrixMarket.Matrix p = MatrixMarket.read(f);
        assertEquals(m.pattern(), p.pattern());
        assertNull(p.values());
        assertTrue(Files.readString(f).startsWith("%%MatrixMarket matrix coordinate pattern general\n"));
    }

    @Test
    void symmetricFilesHoldTheLowerTriangleAndReadAsFull() throws IOException {
        Path f = tmp.resolve("s.mtx");
        Files.writeString(f, "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n3 3 4\n1 1 2.0\n2 1 -1\n3 2 -1\n3 3 2\n");
        MatrixMarket.Matrix m = MatrixMarket.read(f);
        assertTrue(m.symmetric());
        assertArrayEquals(new double[] {2, -1, 0, -1, 0, -1, 0, -1, 2}, m.matrix().toDense());
        Path g = tmp.resolve("g.mtx");
        MatrixMarket.writePattern(m.pattern(), g, true);
        assertEquals("%%MatrixMarket matrix coordinate pattern symmetric\n% written by gradscope\n3 3 4\n1 1\n2 1\n3 2\n3 3\n",
                Files.readString(g));
        assertEquals(m.pattern(), MatrixMarket.read(g).pattern());
    }

    @Test
    void malformedFilesAreErrorsWithTheLine() throws IOException {
        String[][] cases = {
            {"hello\n", ":1: not a Matrix Market file"},
            {"%%MatrixMarket matrix array real general\n2 2\n", ":1: only the coordinate format is read, not 'array'"},
            {"%%MatrixMarket matrix coordinate complex general\n", ":1: field 'complex' is not read"},
            {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n3 1\n", ":3: entry (3, 1) is outside the 2 x 2 matrix"},
            {"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n", ": ends after 1 of 2 entries"},
            {"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n1 2\n", ":3: a symmetric file lists the lower triangle only"},
            {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n", ":3: 'x' is not a number"},
        };
        for (String[] c : cases) {
            Path f = tmp.resolve("bad.mtx");
            Files.writeString(f, c[0]);
            GradscopeException e = assertThrows(GradscopeException.class, () -> MatrixMarket.read(f));
            assertTrue(e.getMessage().startsWith(f + c[1]), e.getMessage());
        }
    }
}
