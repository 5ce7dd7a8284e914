package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.diagnose.NodeCheck;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope gradcheck}: which node's gradient is wrong. */
@Command(name = "gradcheck", mixinStandardHelpOptions = true,
        description = {"Checks every node's VJP at its recorded inputs against central differences in float64 "
                + "(eps 1e-6, atol 1e-5, rtol 1e-3, as PyTorch's gradcheck) and prints a table: node, line, op, elements "
                + "checked, max error, result."},
        footer = {"", "Exit status: 0 every node passes; 3 some node fails; 2 a mistake in the program, an option or a file; "
                + "1 an internal failure; 130 stopped by Ctrl+C (one line)."})
public final class GradcheckCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run and check.")
    Path program;

    @Option(names = "--node", paramLabel = "NAME", description = "Check only the node named NAME (a statement's name).")
    String node;

    @Option(names = "--samples", paramLabel = "N", defaultValue = "" + NodeCheck.DEFAULT_SAMPLES,
            description = "Elements checked per input at most (default: ${DEFAULT-VALUE}); all of them when fewer.")
    int samples;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() {
        Interrupt.install("gradcheck");
        if (samples < 1) {
            throw new GradscopeException("--samples must be at least 1, not " + samples);
        }
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        ProgramRun result = p.run(options);
        TraceGraph g = TraceGraph.of(result.trace());
        if (result.gradients() == null) {
            throw new GradscopeException(program + ": nothing needs a gradient (no param, no input(..., grad=True))");
        }
        List<NodeCheck.Result> results = new ArrayList<>();
        List<String> names = new ArrayList<>();
        ProgressLine line = new ProgressLine("checked", "nodes");
        int total = result.gradients().byNode().size();
        int seen = 0;
        for (var n : result.gradients().byNode().keySet()) {
            line.done(seen++, total);
            int at = g.indexOf(n.id());
            String title = at >= 0 ? g.vertex(at).title() : n.opName();
            if (!n.isLeaf()) {
                names.add(title);
            }
            if (!n.isLeaf() && (node == null || node.equals(title))) {
                results.add(NodeCheck.check(n, samples));
            }
        }
        if (node != null && results.isEmpty()) {
            for (TraceGraph.Vertex v : g.vertices()) {
                if (v.kind() != TraceGraph.Kind.OP && v.kind() != TraceGraph.Kind.OBJECTIVE && node.equals(v.title())) {
                    throw new GradscopeException("--node " + node + ": '" + node + "' is a leaf: it has no VJP to check (its gradient "
                            + "is what the nodes after it send); the nodes are " + String.join(", ", new java.util.LinkedHashSet<>(names)));
                }
            }
            throw new GradscopeException("--node " + node + ": no node with a gradient is named '" + node + "'"
                    + Names.didYouMean(node, names));
        }
        results.sort(java.util.Comparator.comparingLong(r -> r.node().id()));
        System.out.printf(Locale.ROOT, "%-16s %5s  %-24s %8s %11s  %s%n", "node", "line", "op", "checked", "max error", "result");
        int failed = 0;
        int unchecked = 0;
        for (NodeCheck.Result r : results) {
            int at = g.indexOf(r.node().id());
            TraceGraph.Vertex v = at >= 0 ? g.vertex(at) : null;
            String title = v != null ? v.title() : r.node().opName();
            System.out.printf(Locale.ROOT, "%-16s %5d  %-24s %8d %11.3e  %s%n", title, v == null ? 0 : v.line(),
                    r.node().op().label(), r.checked(), r.maxError(), r.verdict());
            failed += r.ok() ? 0 : 1;
            unchecked += r.checkable() ? 0 : 1;
        }
        System.out.println(results.size() - failed - unchecked + " passed, " + failed + " failed"
                + (unchecked == 0 ? "" : ", " + unchecked + " not checkable"));
        return failed == 0 ? 0 : 3;
    }
}
