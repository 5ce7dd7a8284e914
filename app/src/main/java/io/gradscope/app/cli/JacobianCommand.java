package io.gradscope.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.ColoringChoice;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.jacobian.EntryPaths;
import io.gradscope.engine.jacobian.GraphJacobian;
import io.gradscope.engine.jacobian.Hessians;
import io.gradscope.engine.jacobian.JacobianEstimate;
import io.gradscope.engine.jacobian.JacobianOperator;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.ProgramJacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.jacobian.Watched;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.MatrixMarket;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope jacobian}: the Jacobian of one value of a program with respect to another, and its sparsity. */
@Command(name = "jacobian", mixinStandardHelpOptions = true,
        description = {"The Jacobian of the named value NODE with respect to a leaf (a param, or an input(..., grad=True)) "
                + "or another named value, shaped output-size x input-size (both flattened in C order). By default its "
                + "sparsity pattern is found from the ops' dependency rules without evaluating it, colored, and the "
                + "Jacobian evaluated compressed: one VJP per color of a row partition, one JVP per color of a column "
                + "partition; --dense evaluates it row by row instead. --hessian takes the Hessian of a scalar NODE "
                + "(star coloring, one Hessian-vector product per color). Prints a summary."},
        // Worded so that picocli's wrap falls between words ("DIR/summary.json." at a line's end was cut at its dot).
        footer = {"", "With --out DIR it writes DIR/summary.json, DIR/jacobian.npy (dense; left out above 16,777,216 "
                + "entries), DIR/jacobian.mtx (its nonzeros), DIR/pattern.mtx and DIR/colors.npy (int64, the color of "
                + "every column, or row for a row partition).",
            "", "--coloring: column, row (default: whichever needs fewer colors; row on a tie) or star (the default with "
                + "--hessian). --order: natural, largest-first, smallest-last, "
                + "incidence-degree, dynamic-largest-first or best (each, keeping the fewest colors; the default). --recolor N: passes that try to beat "
                + "greedy (default 10; 0 for plain greedy).",
            "", "Exit status: 0 success; 2 a mistake in the program, an option or a file (one line); 1 an internal failure; "
                + "130 stopped by Ctrl+C (one line; nothing written)."})
public final class JacobianCommand implements Callable<Integer> {
    /** What {@code --out DIR} holds after a run (an earlier run's files may be replaced, nothing else). */
    static final OutputFolder.Layout LAYOUT = new OutputFolder.Layout(
            Set.of("jacobian.npy", "jacobian.mtx", "pattern.mtx", "colors.npy", "summary.json"), Set.of());

    /** The most entries --dense evaluates (10,000 x 10,000: a few seconds for a cheap program). */
    static final long MAX_DENSE_EVALUATION = 100_000_000L;

    /** The largest Jacobian written densely (128 MiB of float64). */
    static final long MAX_DENSE = 1L << 24;

    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Option(names = "--of", paramLabel = "NODE", required = true, description = "The named value to differentiate.")
    String of;

    @Option(names = "--wrt", paramLabel = "LEAF", required = true,
            description = "What to differentiate by: a param, an input(..., grad=True), or a named value.")
    String wrt;

    @Option(names = "--dense", description = "Evaluate every row (one VJP each; with --coloring column, every column by a JVP); "
            + "up to 100,000,000 entries.")
    boolean dense;

    @Option(names = "--pattern", paramLabel = "global|local",
            description = "global: holds for every input (the default); local: at these values, a subset (ReLU at negative "
                    + "inputs, -inf masks, amax's losers).")
    String pattern;

    @Option(names = "--hessian", description = "The Hessian of the scalar NODE instead (the Jacobian of its gradient).")
    boolean hessian;

    @Option(names = "--coloring", paramLabel = "column|row|star", description = "The partition (see below).")
    String coloring;

    @Option(names = "--order", paramLabel = "NAME", defaultValue = "best", description = "Greedy's vertex order (see below).")
    String order;

    @Option(names = "--recolor", paramLabel = "N", defaultValue = "10", description = "Passes to beat greedy, at most 10000 (see below).")
    int recolor;

    @Option(names = "--out", paramLabel = "DIR", description = "Write the Jacobian, its pattern, the colors and the summary here.")
    Path out;

    @Option(names = "--pattern-only", description = "Find the sparsity pattern (and its coloring) without evaluating the "
            + "Jacobian: no products; with --out, writes the pattern, the colors and the summary (no Jacobian files)")
    boolean patternOnly;

    @Option(names = "--max-time", paramLabel = "SECONDS", defaultValue = "60",
            description = "Evaluate only when the estimate (printed first, on stderr) is at most this many seconds; above it, "
                    + "stop and say what to do instead (default: ${DEFAULT-VALUE}).")
    double maxTime;

    @Option(names = "--why", paramLabel = "ROW,COL",
            description = "Say why entry (ROW, COL) is nonzero, evaluating nothing: its paths through the ops' rules (how many, "
                    + "globally and at these values, and the shortest); for one only the global pattern has, where each path is "
                    + "cut at these values (a ReLU at a negative input, a max pool's loser)")
    String why;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() throws IOException {
        Interrupt.install("jacobian");
        if (dense && pattern != null) {
            throw new GradscopeException("--dense evaluates without a pattern; leave out --pattern " + pattern);
        }
        Sparsity sparsity = switch (pattern == null ? "global" : pattern) {
            case "global" -> Sparsity.GLOBAL;
            case "local" -> Sparsity.LOCAL;
            default -> throw new GradscopeException("--pattern must be global or local, not '" + pattern + "'");
        };
        Coloring.Kind kind = coloring == null ? null : ColoringOptions.kind(coloring);
        if (kind == Coloring.Kind.STAR && !hessian) {
            throw new GradscopeException("--coloring star is for symmetric matrices: use it with --hessian");
        }
        if (hessian && kind != null && kind != Coloring.Kind.STAR) {
            throw new GradscopeException("--hessian evaluates by star coloring; --coloring " + coloring + " does not apply");
        }
        ColoringOptions.check(order, recolor);
        if (why != null && (hessian || out != null || dense || patternOnly)) {
            throw new GradscopeException("--why explains one entry of a Jacobian and evaluates and writes nothing; leave out "
                    + (hessian ? "--hessian" : out != null ? "--out" : dense ? "--dense" : "--pattern-only"));
        }
        OutputFolder folder = out == null ? null : OutputFolder.check(out, LAYOUT);
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        GraphJacobian j;
        try {
            j = hessian ? ProgramJacobians.hessian(p, options, of, wrt) : ProgramJacobians.of(p, options, of, wrt);
        } catch (ProgramJacobians.BadValue e) {
            throw new GradscopeException("--" + e.which() + " " + e.name() + ": " + e.getMessage());
        }
        if (why != null) {
            int[] entry = entry(j);
            System.out.println(EntryPaths.of(j, entry[0], entry[1], Interrupt.flag()).describe());
            return 0;
        }
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("of", of);
        s.put("wrt", wrt);
        s.put("matrix", hessian ? "hessian" : "jacobian");
        s.put("rows", j.rows());
        s.put("cols", j.cols());
        SparseMatrix result;
        Pattern structure;
        Coloring c;
        if (patternOnly) {
            if (dense) {
                throw new GradscopeException("--pattern-only evaluates nothing; leave out --dense");
            }
            JacobianEstimate e = hessian ? null : j.estimate(sparsity, Interrupt.flag());
            if (e != null) {
                System.err.println("estimate: " + e.summary());
            }
            Pattern found = hessian ? Hessians.pattern(j, sparsity) : j.pattern(sparsity, Interrupt.flag());
            Coloring colors = choose(found, kind);
            s.put("pattern", sparsity.flag());
            s.put("evaluation", "none (--pattern-only)");
            putPattern(s, found, colors, j);
            List<String> wrote = new ArrayList<>();
            String replaced = folder == null ? null : folder.write(dir -> wrote.addAll(writePattern(dir, found, colors, s)));
            printPattern(s, j, wrote);
            OutputFolder.report(replaced);
            return 0;
        }
        if (dense && (long) j.rows() * j.cols() > MAX_DENSE_EVALUATION) {
            // A VJP (or JVP) per row costs about a pass over the whole matrix: 100,000 x 100,000 took minutes.
            throw new GradscopeException("--dense: the " + (hessian ? "hessian" : "jacobian") + " is " + j.rows() + " x " + j.cols()
                    + " (" + (long) j.rows() * j.cols() + " entries), more than --dense evaluates (" + MAX_DENSE_EVALUATION
                    + "); leave out --dense to evaluate it by its sparsity pattern");
        }
        checkEstimate(j, sparsity);
        if (dense) {
            boolean byColumns = kind == Coloring.Kind.COLUMN || hessian;
            JacobianOperator w = watched(j, byColumns ? j.cols() : j.rows());
            result = byColumns ? Jacobians.denseByColumns(w) : Jacobians.denseByRows(w);
            structure = result.nonzeros();
            if (hessian) {
                structure = structure.symmetrized();
            }
            c = choose(structure, kind);
            s.put("pattern", "nonzeros of the dense evaluation");
            s.put("evaluation", byColumns ? "dense by columns" : "dense by rows");
        } else {
            structure = hessian ? Hessians.pattern(j, sparsity) : j.pattern(sparsity, Interrupt.flag());
            c = choose(structure, kind);
            result = Jacobians.compressed(watched(j, c.count()), structure, c);
            s.put("pattern", sparsity.flag());
            s.put("evaluation", "compressed");
        }
        putPattern(s, structure, c, j);
        s.put("vjps", j.vjps());
        s.put("jvps", j.jvps());
        s.put("dense_vjps", j.rows());
        s.put("dense_jvps", j.cols());
        s.put("nonzeros_found", result.nonzeros().nnz());
        List<String> wrote = new ArrayList<>();
        String replaced = null;
        if (folder != null) {
            SparseMatrix values = result;
            Pattern used = structure;
            Coloring colors = c;
            replaced = folder.write(dir -> wrote.addAll(write(dir, values, used, colors, options, s)));
        }
        print(s, j, wrote);
        OutputFolder.report(replaced);
        return 0;
    }

    /** {@code --why ROW,COL} as a row and a column inside {@code j}. */
    private int[] entry(GraphJacobian j) {
        String[] parts = why.split(",", -1);
        int[] rc = new int[2];
        try {
            if (parts.length != 2) {
                throw new NumberFormatException();
            }
            rc[0] = Integer.parseInt(parts[0].strip());
            rc[1] = Integer.parseInt(parts[1].strip());
        } catch (NumberFormatException e) {
            throw new GradscopeException("--why must be ROW,COL (two whole numbers, e.g. --why 3,17), not '" + why + "'");
        }
        if (rc[0] < 0 || rc[0] >= j.rows() || rc[1] < 0 || rc[1] >= j.cols()) {
            throw new GradscopeException("--why " + why + ": the jacobian of " + of + " by " + wrt + " is " + j.rows() + " x " + j.cols()
                    + " (rows 0 to " + (j.rows() - 1) + ", columns 0 to " + (j.cols() - 1) + ")");
        }
        return rc;
    }

    /** {@code j}'s products, stopped by Ctrl+C between two, with a line of progress on stderr each second of a long evaluation. */
    private static JacobianOperator watched(GraphJacobian j, int products) {
        ProgressLine line = new ProgressLine("evaluating", "products");
        return new Watched(j, Interrupt.flag(), line::done, products);
    }

    private static void putPattern(Map<String, Object> s, Pattern structure, Coloring c, GraphJacobian j) {
        s.put("nonzeros", structure.nnz());
        s.put("density", structure.density());
        s.put("coloring", c.kind().flag());
        s.put("order", c.order());
        s.put("colors", c.count());
        s.put("lower_bound", Colorings.lowerBound(structure, c.kind()));
        s.put("valid", Colorings.isValid(structure, c));
    }

    /**
     * Prints the estimate on stderr; above {@code --max-time} stops with what to do instead (the
     * pattern alone, a smaller {@code --wrt}, a higher limit) before any product is taken.
     */
    private void checkEstimate(GraphJacobian j, Sparsity sparsity) {
        String what;
        double seconds;
        if (dense || hessian) {
            long products = dense ? Math.min(j.rows(), j.cols()) : j.cols();
            JacobianEstimate e = new JacobianEstimate(j.rows(), j.cols(), 0, 0, 0, j.forwardFlops());
            seconds = products * 3.0 * e.forwardFlops() / JacobianEstimate.FLOPS_PER_SECOND;
            what = (hessian ? "at most " : "") + products + " products, about " + JacobianEstimate.time(seconds);
        } else {
            JacobianEstimate e = j.estimate(sparsity, Interrupt.flag());
            seconds = e.seconds();
            what = e.summary();
        }
        System.err.println("estimate: " + what);
        if (seconds > maxTime) {
            throw new GradscopeException("the " + (hessian ? "Hessian" : "Jacobian") + " of " + of + " by " + wrt + " is estimated "
                    + "above --max-time " + maxTime + " s (" + what + "): run with --pattern-only for the pattern alone, "
                    + "take a smaller --wrt, or raise --max-time");
        }
    }

    private static List<String> writePattern(Path out, Pattern structure, Coloring c, Map<String, Object> s) throws IOException {
        MatrixMarket.writePattern(structure, out.resolve("pattern.mtx"), false);
        Npy.write(ColorCommand.colors(c), out.resolve("colors.npy"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("summary.json").toFile(), s);
        return List.of("pattern.mtx", "colors.npy", "summary.json");
    }

    private void printPattern(Map<String, Object> s, GraphJacobian j, List<String> wrote) {
        System.out.println((hessian ? "hessian of " + of : "jacobian of " + of + " " + Shapes.str(j.output().shape())) + " with respect to "
                + wrt + " " + Shapes.str(j.wrt().shape()) + ": " + s.get("rows") + " x " + s.get("cols"));
        System.out.println("pattern (" + s.get("pattern") + "): " + s.get("nonzeros") + " nonzeros, density "
                + String.format(Locale.ROOT, "%.4g", (double) s.get("density")));
        System.out.println(s.get("coloring") + " coloring (" + s.get("order") + "): " + count((int) s.get("colors"), "color")
                + ", lower bound " + s.get("lower_bound") + "; not evaluated (--pattern-only)");
        if (!wrote.isEmpty()) {
            System.out.println("wrote " + String.join(", ", wrote.stream().map(f -> out.resolve(f).toString()).toList()));
        }
    }

    /** The coloring asked for, or (none asked for) the one of column and row that needs fewer colors. */
    private Coloring choose(Pattern structure, Coloring.Kind kind) {
        return new ColoringChoice(hessian ? Coloring.Kind.STAR : kind, order, recolor).color(structure);
    }

    private static List<String> write(Path out, SparseMatrix result, Pattern structure, Coloring c, RunOptions options,
            Map<String, Object> s) throws IOException {
        List<String> wrote = new ArrayList<>();
        long entries = (long) result.rows() * result.cols();
        if (entries <= MAX_DENSE) {
            Npy.write(Tensor.fromDoubles(options.dtype(), result.toDense(), result.rows(), result.cols()), out.resolve("jacobian.npy"));
            wrote.add("jacobian.npy");
        } else {
            s.put("dense_file", "not written: " + result.rows() + " x " + result.cols() + " has more than " + MAX_DENSE
                    + " entries; jacobian.mtx holds the nonzeros");
        }
        SparseMatrix nonzeros = keepNonzeros(result);
        MatrixMarket.writeReal(nonzeros, out.resolve("jacobian.mtx"));
        MatrixMarket.writePattern(structure, out.resolve("pattern.mtx"), false);
        Npy.write(ColorCommand.colors(c), out.resolve("colors.npy"));
        wrote.addAll(List.of("jacobian.mtx", "pattern.mtx", "colors.npy", "summary.json"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("summary.json").toFile(), s);
        return wrote;
    }

    private static SparseMatrix keepNonzeros(SparseMatrix m) {
        Pattern p = m.nonzeros();
        double[] v = new double[p.nnz()];
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                v[k] = m.get(i, p.column(k));
            }
        }
        return new SparseMatrix(p, v);
    }

    /** {@code 1 color}, {@code 3 colors}. */
    static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private void print(Map<String, Object> s, GraphJacobian j, List<String> wrote) {
        String what = hessian ? "hessian of " + of + " with respect to " + wrt
                : "jacobian of " + of + " " + Shapes.str(j.output().shape()) + " with respect to " + wrt + " "
                + Shapes.str(j.wrt().shape());
        System.out.println(what + ": " + s.get("rows") + " x " + s.get("cols"));
        System.out.println("pattern (" + s.get("pattern") + "): " + s.get("nonzeros") + " nonzeros, density "
                + String.format(Locale.ROOT, "%.4g", (double) s.get("density")));
        if (((Number) s.get("nonzeros")).longValue() == 0 && "global".equals(s.get("pattern"))) {
            System.out.println("note: " + of + " does not depend on " + wrt + " (no path leads from it" + (hessian ? "" : " to " + of)
                    + "): the matrix is zero");
        }
        System.out.println(s.get("coloring") + " coloring (" + s.get("order") + "): " + count((int) s.get("colors"), "color")
                + ", lower bound " + s.get("lower_bound") + ", " + ((boolean) s.get("valid") ? "valid" : "NOT valid"));
        String used = j.vjps() > 0 ? count(j.vjps(), "VJP") + (j.jvps() > 0 ? " and " + count(j.jvps(), "JVP") : "")
                : count(j.jvps(), hessian ? "Hessian-vector product" : "JVP") + (hessian ? " (JVPs of the gradient)" : "");
        System.out.println("evaluated " + s.get("evaluation") + ": " + used + "; dense takes " + j.rows() + " VJPs or "
                + j.cols() + " JVPs");
        if (s.containsKey("dense_file")) {
            System.out.println("jacobian.npy " + s.get("dense_file"));
        }
        if (!wrote.isEmpty()) {
            System.out.println("wrote " + String.join(", ", wrote.stream().map(f -> out.resolve(f).toString()).toList()));
        }
    }
}
