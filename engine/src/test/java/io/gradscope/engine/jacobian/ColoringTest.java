package io.gradscope.engine.jacobian;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Colorings: the counts the literature gives for bands (optimal), validity of every kind in every
 * order on random patterns, exact decompression, and the five-point Laplacian per order.
 */
class ColoringTest {

    @Test
    void tridiagonalTakesThreeColorsInEveryOrder() {
        for (int n : new int[] {3, 10, 101}) {
            Pattern p = Matrices.band(n, 1, 1);
            for (VertexOrder o : VertexOrder.values()) {
                for (Coloring.Kind k : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.ROW}) {
                    Coloring c = Colorings.color(p, k, o);
                    assertTrue(Colorings.isValid(p, c), c.toString());
                    assertEquals(3, c.count(), n + " " + c);
                    assertEquals(3, Colorings.lowerBound(p, k));
                }
            }
        }
    }

    @Test
    void bandWithLowerAndUpperDiagonalsTakesLPlusUPlusOneInNaturalOrder() {
        for (int l = 0; l <= 4; l++) {
            for (int u = 0; u <= 4; u++) {
                Pattern p = Matrices.band(40, l, u);
                for (Coloring.Kind k : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.ROW}) {
                    Coloring c = Colorings.color(p, k, VertexOrder.NATURAL);
                    assertTrue(Colorings.isValid(p, c));
                    assertEquals(l + u + 1, c.count(), "l=" + l + " u=" + u + " " + k);
                    assertEquals(l + u + 1, Colorings.lowerBound(p, k), "the bound is reached: optimal");
                }
            }
        }
    }

    /**
     * A symmetric band with entries |i − j| ≤ β (ρ = 2β diagonals off the main one): 2⌊ρ/2⌋ + 1 =
     * 2β + 1 colors, optimal for β ≤ 4 (an exhaustive search on 14 indices finds no star coloring
     * with fewer).
     */
    @Test
    void symmetricBandStarColorsWithTwoBetaPlusOne() {
        for (int beta = 1; beta <= 6; beta++) {
            Pattern p = Matrices.band(60, beta, beta);
            Coloring c = Colorings.color(p, Coloring.Kind.STAR, VertexOrder.NATURAL);
            assertTrue(Colorings.isValid(p, c), c.toString());
            assertEquals(2 * beta + 1, c.count(), "beta " + beta);
            assertTrue(Colorings.lowerBound(p, Coloring.Kind.STAR) <= c.count());
        }
    }

    @Test
    void laplacianOfATwentyByTwentyGridPerOrder() {
        Pattern p = Matrices.laplacian(20);
        StringBuilder report = new StringBuilder("five-point Laplacian 20x20 (400 x 400, 1920 nonzeros), lower bound "
                + Colorings.lowerBound(p, Coloring.Kind.COLUMN) + ":");
        for (Coloring.Kind k : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.STAR}) {
            for (VertexOrder o : VertexOrder.values()) {
                Coloring c = Colorings.color(p, k, o);
                Coloring better = Colorings.recolor(p, c, 10);
                assertTrue(Colorings.isValid(p, c) && Colorings.isValid(p, better), c.toString());
                assertTrue(better.count() <= c.count());
                assertTrue(better.count() >= 5, "5 is optimal for the column partition and for star colorings of the grid");
                if (k == Coloring.Kind.COLUMN) {
                    assertTrue(c.count() <= (o == VertexOrder.DYNAMIC_LARGEST_FIRST ? 8 : 7), "greedy, as other tools: " + c);
                    assertEquals(5, better.count(), "the tabu search reaches the optimum from " + c);
                }
                report.append(String.format("%n  %-6s %-22s greedy %d, recolored %d", k.flag(), o.flag(), c.count(), better.count()));
            }
        }
        // The optimum (i + 2j) mod 5 is valid, and the check knows it.
        int[] five = new int[400];
        for (int x = 0; x < 20; x++) {
            for (int y = 0; y < 20; y++) {
                five[x * 20 + y] = (x + 2 * y) % 5;
            }
        }
        assertTrue(Colorings.isValid(p, new Coloring(Coloring.Kind.COLUMN, five, 5, "given")));
        assertTrue(Colorings.isValid(p, new Coloring(Coloring.Kind.STAR, five, 5, "given")));
        System.out.println(report);
    }

    @Test
    void everyKindAndOrderIsValidOnRandomPatternsAndDecompressesExactly() {
        Random r = new Random(11);
        for (int t = 0; t < 40; t++) {
            int m = 1 + r.nextInt(30);
            int n = 1 + r.nextInt(30);
            Pattern p = Matrices.random(r, m, n, r.nextDouble() * 0.3);
            SparseMatrix a = Matrices.values(r, p);
            for (VertexOrder o : VertexOrder.values()) {
                for (Coloring.Kind k : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.ROW}) {
                    Coloring c = Colorings.color(p, k, o);
                    assertTrue(Colorings.isValid(p, c), c + " on " + p);
                    assertTrue(c.count() >= Colorings.lowerBound(p, k));
                    MatrixOperator op = new MatrixOperator(a);
                    SparseMatrix back = Jacobians.compressed(op, p, c);
                    assertArrayEquals(a.toDense(), back.toDense(), 0.0, "decompression is exact");
                    assertEquals(c.count(), k == Coloring.Kind.COLUMN ? op.jvps() : op.vjps());
                    Coloring re = Colorings.recolor(p, c, 3);
                    assertTrue(Colorings.isValid(p, re) && re.count() <= c.count());
                }
            }
            Pattern s = Matrices.random(r, n, n, r.nextDouble() * 0.2).symmetrized();
            SparseMatrix h = Matrices.symmetricValues(r, s);
            for (VertexOrder o : VertexOrder.values()) {
                Coloring c = Colorings.color(s, Coloring.Kind.STAR, o);
                assertTrue(Colorings.isValid(s, c), c + " on " + s);
                assertArrayEquals(h.toDense(), Jacobians.compressed(new MatrixOperator(h), s, c).toDense(), 0.0,
                        "star decompression is exact");
                assertTrue(c.count() >= Colorings.lowerBound(s, Coloring.Kind.STAR));
            }
        }
    }

    @Test
    void distanceTwoColoringsAreValidStarColoringsAndStarNeedsNoMore() {
        Random r = new Random(5);
        for (int t = 0; t < 40; t++) {
            int n = 2 + r.nextInt(40);
            Pattern s = Matrices.random(r, n, n, r.nextDouble() * 0.3).symmetrized();
            Pattern g = Colorings.conflictGraph(s, Coloring.Kind.STAR);
            SparseMatrix h = Matrices.symmetricValues(r, s);
            for (VertexOrder o : VertexOrder.values()) {
                int[] d2 = Colorings.distanceTwo(g, o.order(g));
                Coloring c = new Coloring(Coloring.Kind.STAR, d2, Colorings.count(d2), o.flag());
                assertTrue(Colorings.isValid(s, c), c + " on " + s);
                assertArrayEquals(h.toDense(), Jacobians.compressed(new MatrixOperator(h), s, c).toDense(), 0.0);
                // Any two vertices within two steps differ.
                for (int v = 0; v < n; v++) {
                    for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                        int w = g.column(q);
                        assertTrue(d2[v] != d2[w]);
                        for (int k = g.rowStart(w); k < g.rowEnd(w); k++) {
                            assertTrue(g.column(k) == v || d2[v] != d2[g.column(k)]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aDenseHessianTakesOneColorPerIndexWithoutASearch() {
        int n = 1500;
        Pattern dense = Pattern.dense(n, n);
        // (The star search would take n·d³ = 5e12 steps here: this test would not end.)
        Coloring c = ColoringOptionsLike.bestRecolored(dense);
        assertEquals(n, c.count());
        assertEquals(n, Colorings.lowerBound(dense, Coloring.Kind.STAR));
        assertTrue(Colorings.isValid(dense, c));
    }

    /** What jacobian --hessian does by default: the best order, then ten recoloring passes. */
    private static final class ColoringOptionsLike {
        static Coloring bestRecolored(Pattern p) {
            return Colorings.recolor(p, Colorings.best(p, Coloring.Kind.STAR), 10);
        }
    }

    @Test
    void invalidColoringsAreRecognized() {
        Pattern p = Matrices.band(5, 1, 1);
        assertFalse(Colorings.isValid(p, new Coloring(Coloring.Kind.COLUMN, new int[] {0, 1, 0, 1, 0}, 2, "given")));
        assertTrue(Colorings.isValid(p, new Coloring(Coloring.Kind.COLUMN, new int[] {0, 1, 2, 0, 1}, 3, "given")));
        // Distance-1 proper but a path 0-1-2-3 on two colors: not a star coloring.
        assertFalse(Colorings.isValid(p, new Coloring(Coloring.Kind.STAR, new int[] {0, 1, 0, 1, 0}, 2, "given")));
        assertTrue(Colorings.isValid(p, new Coloring(Coloring.Kind.STAR, new int[] {0, 1, 2, 0, 1}, 3, "given")));
        // A star graph: two colors, whatever the degree; the bound is not the row count.
        Pattern star = Pattern.fromCoordinates(5, 5, new int[] {0, 0, 0, 0, 1, 2, 3, 4}, new int[] {1, 2, 3, 4, 0, 0, 0, 0});
        Coloring c = Colorings.color(star, Coloring.Kind.STAR, VertexOrder.LARGEST_FIRST);
        assertEquals(2, c.count());
        assertEquals(2, Colorings.lowerBound(star, Coloring.Kind.STAR));
        GradscopeException e = assertThrows(GradscopeException.class,
                () -> Colorings.color(Matrices.band(4, 0, 1), Coloring.Kind.STAR, VertexOrder.NATURAL));
        assertTrue(e.getMessage().contains("not symmetric"), e.getMessage());
    }

    @Test
    void ordersArePermutations() {
        Pattern g = Colorings.conflictGraph(Matrices.random(new Random(5), 40, 40, 0.1), Coloring.Kind.COLUMN);
        for (VertexOrder o : VertexOrder.values()) {
            int[] order = o.order(g).clone();
            Arrays.sort(order);
            for (int i = 0; i < order.length; i++) {
                assertEquals(i, order[i], o.flag());
            }
        }
        int[] lf = VertexOrder.LARGEST_FIRST.order(g);
        for (int i = 1; i < lf.length; i++) {
            assertTrue(g.rowCount(lf[i - 1]) >= g.rowCount(lf[i]));
        }
    }
}
