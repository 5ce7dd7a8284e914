package io.gradscope.engine.sparse;

import io.gradscope.engine.GradscopeException;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Matrix Market {@code .mtx} files in coordinate format: fields {@code pattern}, {@code real} and
 * {@code integer}; symmetry {@code general} and {@code symmetric} (a symmetric file lists the lower
 * triangle; reading fills in the upper). Other tools (ColPack, SparseMatrixColorings, SciPy's
 * {@code mmread}) read and write the same files.
 *
 * <pre>{@code
 * MatrixMarket.writePattern(p, Path.of("pattern.mtx"), false);
 * MatrixMarket.Matrix m = MatrixMarket.read(Path.of("pattern.mtx"));   // m.pattern() equals p
 * }</pre>
 */
public final class MatrixMarket {
    private MatrixMarket() {
    }

    /** What a file held: the pattern, the values (null for a pattern file), and whether it was symmetric. */
    public record Matrix(Pattern pattern, double[] values, boolean symmetric) {
        /** The values as a sparse matrix (ones for a pattern file). */
        public SparseMatrix matrix() {
            double[] v = values;
            if (v == null) {
                v = new double[pattern.nnz()];
                Arrays.fill(v, 1);
            }
            return new SparseMatrix(pattern, v);
        }
    }

    /** Reads a coordinate file; a malformed one is an error naming the file and line. */
    public static Matrix read(Path file) {
        String problem = io.gradscope.engine.InputFiles.problem(file);
        if (problem != null) {
            throw new GradscopeException("cannot read " + file + ": " + problem);
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(file.toString(), in);
        } catch (IOException e) {
            throw new GradscopeException("cannot read " + file + ": " + io.gradscope.engine.InputFiles.reason(e));
        }
    }

    static Matrix read(String name, BufferedReader in) throws IOException {
        String header = in.readLine();
        if (header != null && header.startsWith("\uFEFF")) {
            header = header.substring(1); // a byte-order mark an editor put before the header
        }
        if (header == null || !header.toLowerCase(Locale.ROOT).startsWith("%%matrixmarket")) {
            throw new GradscopeException(name + ":1: not a Matrix Market file (no %%MatrixMarket header)");
        }
        String[] h = header.trim().toLowerCase(Locale.ROOT).split("\\s+");
        if (h.length != 5 || !h[1].equals("matrix")) {
            throw new GradscopeException(name + ":1: expected '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
        }
        if (!h[2].equals("coordinate")) {
            throw new GradscopeException(name + ":1: only the coordinate format is read, not '" + h[2] + "'");
        }
        boolean pattern = switch (h[3]) {
            case "pattern" -> true;
            case "real", "integer" -> false;
            default -> throw new GradscopeException(name + ":1: field '" + h[3] + "' is not read (pattern, real or integer)");
        };
        boolean symmetric = switch (h[4]) {
            case "general" -> false;
            case "symmetric" -> true;
            default -> throw new GradscopeException(name + ":1: symmetry '" + h[4] + "' is not read (general or symmetric)");
        };
        int line = 1;
        String s;
        do {
            s = in.readLine();
            line++;
        } while (s != null && (s.isBlank() || s.startsWith("%")));
        if (s == null) {
            throw new GradscopeException(name + ":" + line + ": the size line 'ROWS COLS NONZEROS' is missing");
        }
        long[] size = numbers(name, line, s, 3);
        int sizeLine = line;
        if (size[0] > Integer.MAX_VALUE - 8 || size[1] > Integer.MAX_VALUE - 8 || size[2] > Integer.MAX_VALUE / 2 - 8) {
            throw new GradscopeException(name + ":" + line + ": a matrix of this size is too large");
        }
        int rows = (int) size[0];
        int cols = (int) size[1];
        int entries = (int) size[2];
        if (symmetric && rows != cols) {
            throw new GradscopeException(name + ":" + line + ": a symmetric matrix must be square, not " + rows + " x " + cols);
        }
        // Grown as entries come: a small file declaring billions of entries ends early, said as such.
        int cap = Math.min(symmetric ? 2 * entries : entries, 1 << 16);
        int[] ri = new int[cap];
        int[] ci = new int[cap];
        int[] lines = new int[cap];
        double[] vals = pattern ? null : new double[cap];
        int n = 0;
        for (int e = 0; e < entries; e++) {
            do {
                s = in.readLine();
                line++;
            } while (s != null && (s.isBlank() || s.startsWith("%")));
            if (s == null) {
                throw new GradscopeException(name + ": ends after " + e + " of " + entries + " entries");
            }
            String[] f = s.trim().split("\\s+");
            if (f.length != (pattern ? 2 : 3)) {
                throw new GradscopeException(name + ":" + line + ": expected " + (pattern ? "ROW COL" : "ROW COL VALUE")
                        + ", got '" + s.trim() + "'");
            }
            long[] rc = numbers(name, line, f[0] + " " + f[1], 2);
            if (rc[0] < 1 || rc[0] > rows || rc[1] < 1 || rc[1] > cols) {
                throw new GradscopeException(name + ":" + line + ": entry (" + rc[0] + ", " + rc[1] + ") is outside the "
                        + rows + " x " + cols + " matrix (indices start at 1)");
            }
            double v = 1;
            if (!pattern) {
                try {
                    v = Double.parseDouble(f[2]);
                } catch (NumberFormatException ex) {
                    throw new GradscopeException(name + ":" + line + ": '" + f[2] + "' is not a number");
                }
            }
            int i = (int) rc[0] - 1;
            int j = (int) rc[1] - 1;
            if (n + 2 > ri.length) {
                int grown = (int) Math.min((long) ri.length * 2 + 2, symmetric ? 2L * entries : entries);
                ri = Arrays.copyOf(ri, grown);
                ci = Arrays.copyOf(ci, grown);
                lines = Arrays.copyOf(lines, grown);
                vals = vals == null ? null : Arrays.copyOf(vals, grown);
            }
            if (symmetric && j > i) {
                throw new GradscopeException(name + ":" + line + ": a symmetric file lists the lower triangle only, but ("
                        + rc[0] + ", " + rc[1] + ") is above the diagonal");
            }
            ri[n] = i;
            ci[n] = j;
            lines[n] = line;
            if (vals != null) {
                vals[n] = v;
            }
            n++;
            if (symmetric && i != j) {
                ri[n] = j;
                ci[n] = i;
                lines[n] = line;
                if (vals != null) {
                    vals[n] = v;
                }
                n++;
            }
        }
        // After the entries, only blank lines and comments: more entries than declared, or other text, are refused.
        while ((s = in.readLine()) != null) {
            line++;
            if (s.isBlank() || s.startsWith("%")) {
                continue;
            }
            String[] f = s.trim().split("\\s+");
            boolean entry = f.length == (pattern ? 2 : 3) && f[0].matches("\\d+") && f[1].matches("\\d+");
            throw new GradscopeException(name + ":" + line + ": " + (entry ? "an entry past the " + entries
                    + " the size line declares (line " + sizeLine + ")" : "unexpected text after the " + entries + " entries: '"
                    + clip(s.trim()) + "'"));
        }
        return assemble(name, rows, cols, Arrays.copyOf(ri, n), Arrays.copyOf(ci, n), vals == null ? null : Arrays.copyOf(vals, n),
                symmetric, lines);
    }

    private static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    private static Matrix assemble(String name, int rows, int cols, int[] ri, int[] ci, double[] vals, boolean symmetric,
            int[] lines) {
        Pattern p = Pattern.fromCoordinates(rows, cols, ri, ci);
        if (p.nnz() != ri.length) {
            java.util.Map<Long, Integer> seen = new java.util.HashMap<>();
            for (int k = 0; k < ri.length; k++) {
                Integer first = seen.putIfAbsent((long) ri[k] * cols + ci[k], k);
                if (first != null) {
                    throw new GradscopeException(name + ":" + lines[k] + ": entry (" + (ri[k] + 1) + ", " + (ci[k] + 1)
                            + ") is listed twice (first at line " + lines[first] + ")");
                }
            }
            throw new GradscopeException(name + ": an entry is listed twice");
        }
        double[] v = null;
        if (vals != null) {
            v = new double[p.nnz()];
            for (int k = 0; k < ri.length; k++) {
                v[p.indexOf(ri[k], ci[k])] = vals[k];
            }
        }
        return new Matrix(p, v, symmetric);
    }

    private static long[] numbers(String name, int line, String s, int count) {
        String[] f = s.trim().split("\\s+");
        if (f.length != count) {
            throw new GradscopeException(name + ":" + line + ": expected " + count + " integers, got '" + s.trim() + "'");
        }
        long[] v = new long[count];
        for (int i = 0; i < count; i++) {
            try {
                v[i] = Long.parseLong(f[i]);
            } catch (NumberFormatException e) {
                throw new GradscopeException(name + ":" + line + ": '" + f[i] + "' is not an integer");
            }
            if (v[i] < 0) {
                throw new GradscopeException(name + ":" + line + ": '" + f[i] + "' is negative");
            }
        }
        return v;
    }

    /** Writes a pattern file; {@code symmetric} writes the lower triangle of a symmetric pattern. */
    public static void writePattern(Pattern p, Path file, boolean symmetric) throws IOException {
        write(p, null, file, symmetric);
    }

    /** Writes a real general file (values with 17 significant digits, so they read back exactly). */
    public static void writeReal(SparseMatrix m, Path file) throws IOException {
        write(m.pattern(), m.values(), file, false);
    }

    private static void write(Pattern p, double[] values, Path file, boolean symmetric) throws IOException {
        if (symmetric && !p.isSymmetric()) {
            throw new GradscopeException(file + ": the pattern is not symmetric");
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        long count = 0;
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                count += !symmetric || p.column(k) <= i ? 1 : 0;
            }
        }
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("%%MatrixMarket matrix coordinate " + (values == null ? "pattern" : "real") + " "
                    + (symmetric ? "symmetric" : "general") + "\n");
            w.write("% written by gradscope\n");
            w.write(p.rows() + " " + p.cols() + " " + count + "\n");
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < p.rows(); i++) {
                for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                    int j = p.column(k);
                    if (symmetric && j > i) {
                        continue;
                    }
                    sb.setLength(0);
                    sb.append(i + 1).append(' ').append(j + 1);
                    if (values != null) {
                        sb.append(' ').append(String.format(Locale.ROOT, "%.17g", values[k]));
                    }
                    w.write(sb.append('\n').toString());
                }
            }
        }
    }
}
