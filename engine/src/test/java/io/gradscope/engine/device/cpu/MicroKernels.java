package io.gradscope.engine.device.cpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The generator of the CPU backend's unrolled micro-kernels: register-blocked products that keep
 * {@code rows × vectors} accumulators in registers over the reduction (Note [Inlined write-back]).
 * The JIT keeps a vector in a register only when it is a local variable, so each kernel is written
 * out in full; this class writes them, one {@link Spec} each, between {@code // BEGIN GENERATED id}
 * and {@code // END GENERATED id} in the backend's sources. {@link MicroKernelsTest} fails when a
 * source differs from what this class makes; {@code -Dgradscope.regenerate=true} on that test
 * rewrites the sources.
 */
final class MicroKernels {
    private MicroKernels() {
    }

    /**
     * One kernel: its file and signature, the vector type and species, its rows and vectors, the
     * expression for one vector's lanes ({@code width}), the reduction's variable, the lines before
     * the loop and at the top of each step, where B's vectors start, how row r's scalar of A is read,
     * the output array, and whether the kernel adds to C rather than storing.
     */
    record Spec(String id, String file, String signature, String vector, String species, int rows, int vectors,
                String width, List<String> before, String index, List<String> step, String bArray, String bBase,
                IntFunction<String> aRead, String out, boolean add) {
    }

    static List<Spec> specs() {
        List<Spec> s = new ArrayList<>();
        for (int rows : new int[] {12, 6}) {
            for (boolean add : new boolean[] {false, true}) {
                String id = "kernel" + rows + (add ? "Add" : "");
                s.add(new Spec(id, "VectorGemmKernels.java",
                        "static void " + id + "(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc)",
                        "FloatVector", "FS", rows, 2, "w", List.of("int w = FS.length();"), "p",
                        List.of("int a = ao + p * " + rows + ";"), "bp", "bo + p * FNR", r -> "ap[a + " + r + "]", "c", add));
            }
        }
        s.add(new Spec("kernelD", "VectorDgemm.java",
                "private static void kernelD(int kc, double[] ap, int ao, double[] bp, int bo, double[] c, int co, int ldc)",
                "DoubleVector", "DS", 8, 2, "w", List.of("int w = DS.length();"), "p",
                List.of("int a = ao + p * MR;"), "bp", "bo + p * DNR", r -> "ap[a + " + r + "]", "c", true));
        s.add(new Spec("directKernel", "DirectConv.java",
                "private static void kernel(int kc, float[] a, int ao, float[] xp, int xo, int[] offs, float[] out, int co, int ldc)",
                "FloatVector", "FS", 6, 4, "L", List.of(), "q",
                List.of("int at = xo + offs[q];", "int p = ao + q * MR;"), "xp", "at", r -> r == 0 ? "a[p]" : "a[p + " + r + "]", "out", false));
        List<String> rowStarts = new ArrayList<>();
        for (int r = 1; r < 6; r++) {
            rowStarts.add("int r" + r + " = Math.min(" + r + ", last) * rs;");
        }
        s.add(new Spec("directKernelInPlace", "DirectConv.java",
                "private static void kernelInPlace(int kc, float[] a, int ao, int[] woff, int rs, int last, float[] xp, int xo, int[] offs, float[] out, int co, int ldc)",
                "FloatVector", "FS", 6, 4, "L", rowStarts, "q",
                List.of("int at = xo + offs[q];", "int p = ao + woff[q];"), "xp", "at", r -> r == 0 ? "a[p]" : "a[p + r" + r + "]", "out", false));
        // NarrowGemm: eight rows of A against one vector of packed B; four broadcast columns of B against two vectors of A.
        s.add(new Spec("rows8", "NarrowGemm.java",
                "private static void rows8(int kc, float[] a, int x0, int x1, int x2, int x3, int x4, int x5, int x6, int x7, float[] bw, float[] out, int co, int ldc)",
                "FloatVector", "FS", 8, 1, "W", List.of(), "q", List.of(), "bw", "q * W", r -> "a[x" + r + " + q]", "out", false));
        s.add(new Spec("columns4", "NarrowGemm.java",
                "private static void columns4(int kc, float[] a, int off, int ld, float[] bp, int j0, int np, float[] out, int co, int ldc)",
                "FloatVector", "FS", 4, 2, "W", List.of(), "q", List.of("int at = off + q * ld;", "int e = q * np + j0;"), "a", "at",
                r -> r == 0 ? "bp[e]" : "bp[e + " + r + "]", "out", false));
        return s;
    }

    /** The kernel's method, indented for a class body, with its markers. */
    static String source(Spec k) {
        String i1 = "    ";
        String i2 = i1 + i1;
        String i3 = i2 + i1;
        StringBuilder b = new StringBuilder();
        b.append(i1).append(begin(k)).append(" (MicroKernels, engine tests: edit it, not this method)\n");
        b.append(i1).append(k.signature()).append(" {\n");
        for (int r = 0; r < k.rows(); r++) {
            List<String> decl = new ArrayList<>();
            for (int v = 0; v < k.vectors(); v++) {
                decl.add(k.vector() + " " + acc(r, v) + " = " + k.vector() + ".zero(" + k.species() + ");");
            }
            b.append(i2).append(String.join(" ", decl)).append('\n');
        }
        for (String line : k.before()) {
            b.append(i2).append(line).append('\n');
        }
        b.append(i2).append("for (int ").append(k.index()).append(" = 0; ").append(k.index()).append(" < kc; ")
                .append(k.index()).append("++) {\n");
        for (String line : k.step()) {
            if (line.startsWith("int at")) {
                b.append(i3).append(line).append('\n');
            }
        }
        for (int v = 0; v < k.vectors(); v++) {
            b.append(i3).append(k.vector()).append(" b").append(v).append(" = ").append(k.vector()).append(".fromArray(")
                    .append(k.species()).append(", ").append(k.bArray()).append(", ").append(plus(k.bBase(), v, k.width())).append(");\n");
        }
        for (String line : k.step()) {
            if (!line.startsWith("int at")) {
                b.append(i3).append(line).append('\n');
            }
        }
        b.append(i3).append(k.vector()).append(" x;\n");
        for (int r = 0; r < k.rows(); r++) {
            b.append(i3).append("x = ").append(k.vector()).append(".broadcast(").append(k.species()).append(", ")
                    .append(k.aRead().apply(r)).append(");\n");
            for (int v = 0; v < k.vectors(); v++) {
                b.append(i3).append(acc(r, v)).append(" = b").append(v).append(".fma(x, ").append(acc(r, v)).append(");\n");
            }
        }
        b.append(i2).append("}\n");
        for (int r = 0; r < k.rows(); r++) {
            if (r > 0) {
                b.append(i2).append("co += ldc;\n");
            }
            for (int v = 0; v < k.vectors(); v++) {
                String at = plus("co", v, k.width());
                String value = k.add()
                        ? acc(r, v) + ".add(" + k.vector() + ".fromArray(" + k.species() + ", " + k.out() + ", " + at + "))"
                        : acc(r, v);
                b.append(i2).append(value).append(".intoArray(").append(k.out()).append(", ").append(at).append(");\n");
            }
        }
        b.append(i1).append("}\n");
        b.append(i1).append(end(k)).append('\n');
        return b.toString();
    }

    static String begin(Spec k) {
        return "// BEGIN GENERATED " + k.id();
    }

    static String end(Spec k) {
        return "// END GENERATED " + k.id();
    }

    private static String acc(int r, int v) {
        return "c" + r + "_" + v;
    }

    private static String plus(String base, int v, String width) {
        return v == 0 ? base : base + " + " + v + " * " + width;
    }

    /** The source file's text with the kernel's marked method replaced by {@link #source}; the file must hold the markers. */
    static String replaced(String text, Spec k) {
        int from = text.indexOf("    " + begin(k));
        int to = text.indexOf(end(k));
        if (from < 0 || to < 0) {
            throw new IllegalStateException(k.file() + " has no markers for " + k.id());
        }
        int lineEnd = text.indexOf('\n', to) + 1;
        return text.substring(0, from) + source(k) + text.substring(lineEnd);
    }

    static Path file(Path sources, Spec k) {
        return sources.resolve(k.file());
    }

    static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
