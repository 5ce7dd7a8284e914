package io.gradscope.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.sparse.MatrixMarket;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope color}: colors a sparsity pattern read from a Matrix Market file. */
@Command(name = "color", mixinStandardHelpOptions = true,
        description = {"Colors the sparsity pattern of a Matrix Market file (coordinate; pattern, real or integer; general or "
                + "symmetric) for compressed evaluation: a column partition (one JVP per color), a row partition (one VJP per "
                + "color) or a star coloring of a symmetric pattern (one Hessian-vector product per color). Prints the color "
                + "count beside a lower bound, and whether the coloring is valid."},
        footer = {"", "Orders: natural, largest-first, smallest-last, incidence-degree, dynamic-largest-first, or best (each, "
                + "keeping the fewest colors). --recolor N adds N passes of iterated greedy and, for column and row "
                + "partitions, a tabu search for fewer colors; the default 0 keeps plain greedy, comparable with ColPack and "
                + "SparseMatrixColorings.",
            "", "Exit status: 0 success; 2 a mistake in an option or the file (one line); 1 an internal failure."})
public final class ColorCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.mtx", description = "The pattern.")
    Path file;

    @Option(names = "--coloring", paramLabel = "column|row|star", defaultValue = "column",
            description = "What to color (default: ${DEFAULT-VALUE}).")
    String coloring;

    @Option(names = "--order", paramLabel = "NAME", defaultValue = "natural",
            description = "The vertex order of greedy coloring (default: ${DEFAULT-VALUE}).")
    String order;

    @Option(names = "--recolor", paramLabel = "N", defaultValue = "0",
            description = "Passes that try to beat greedy, at most 10000 (default: ${DEFAULT-VALUE}).")
    int recolor;

    @Option(names = "--json", description = "Print one JSON object (colors, lower_bound, valid, ...) instead of text.")
    boolean json;

    @Option(names = "--out", paramLabel = "COLORS.npy", description = "Write the color of every column (row, index) here, int64. An existing .npy file is "
                    + "replaced; the input, any other file, a folder or a pipe is refused.")
    Path out;

    @Override
    public Integer call() throws IOException {
        Coloring.Kind kind = ColoringOptions.kind(coloring);
        ColoringOptions.check(order, recolor);
        io.gradscope.engine.OutputFile target = out == null ? null
                : io.gradscope.engine.OutputFile.check("--out", out, ".npy", Npy.MAGIC, file);
        Pattern p = MatrixMarket.read(file).pattern();
        Coloring c = ColoringOptions.color(p, kind, order, recolor);
        int bound = Colorings.lowerBound(p, kind);
        boolean valid = Colorings.isValid(p, c);
        if (json) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("file", file.toString());
            o.put("rows", p.rows());
            o.put("cols", p.cols());
            o.put("nonzeros", p.nnz());
            o.put("coloring", kind.flag());
            o.put("order", c.order());
            o.put("colors", c.count());
            o.put("lower_bound", bound);
            o.put("valid", valid);
            System.out.println(new ObjectMapper().writeValueAsString(o));
        } else {
            System.out.println(file + ": " + p.shape() + ", " + p.nnz() + " nonzeros");
            System.out.println(kind.flag() + " coloring (" + c.order() + "): " + JacobianCommand.count(c.count(), "color")
                    + ", lower bound " + bound + ", " + (valid ? "valid" : "NOT valid"));
        }
        if (out != null) {
            try {
                Npy.write(colors(c), out);
            } catch (IOException e) {
                throw target.failed(e);
            }
        }
        return valid ? 0 : 1;
    }

    /** The colors as an int64 vector. */
    static Tensor colors(Coloring c) {
        int[] colors = c.colors();
        long[] l = new long[colors.length];
        for (int i = 0; i < l.length; i++) {
            l[i] = colors[i];
        }
        return Tensor.ofLongs(l, l.length);
    }
}
