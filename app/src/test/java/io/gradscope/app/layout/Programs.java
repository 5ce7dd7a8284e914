package io.gradscope.app.layout;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.Map;

/** Programs the layout tests share: the examples, a residual chain of n blocks, transformer layers as groups. */
public final class Programs {
    private Programs() {
    }

    public static TraceGraph graph(String name, String source) {
        return TraceGraph.of(Program.parse(name, source).run(new RunOptions(DType.FLOAT32, 0, Map.of())).trace());
    }

    public static TraceGraph example(String file) {
        return TraceGraph.of(Program.load(Path.of("../assets/examples/" + file)).run(new RunOptions(DType.FLOAT32, 0, Map.of())).trace());
    }

    /** x, t, then {@code blocks} blocks "W_i = param; h_i = h + 0.5 * tanh(h @ W_i)" (5 vertices), then loss: 5n + 3 vertices. */
    public static String residualChain(int blocks) {
        StringBuilder sb = new StringBuilder("x = input(16, 32)\nt = input(16, 32)\n");
        String prev = "x";
        for (int i = 1; i <= blocks; i++) {
            sb.append("W").append(i).append(" = param(32, 32)\n");
            sb.append("h").append(i).append(" = ").append(prev).append(" + 0.5 * tanh(").append(prev).append(" @ W").append(i).append(")\n");
            prev = "h" + i;
        }
        return sb.append("loss = mse(").append(prev).append(", t)\n").toString();
    }

    /** {@code layers} transformer-style layers, each a group "layer_i" of a norm, a matmul, a gelu and a residual add. */
    public static String layers(int layers) {
        StringBuilder sb = new StringBuilder("x = input(8, 16)\n");
        String prev = "x";
        for (int i = 1; i <= layers; i++) {
            sb.append("W").append(i).append(" = param(16, 16)\n");
            sb.append("g").append(i).append(" = param(16, init=\"ones\")\n");
            sb.append("c").append(i).append(" = param(16, init=\"zeros\")\n");
            sb.append("with group(\"layer").append(i).append("\"):\n");
            sb.append("    n").append(i).append(" = layer_norm(").append(prev).append(", g").append(i).append(", c").append(i).append(")\n");
            sb.append("    m").append(i).append(" = gelu(n").append(i).append(" @ W").append(i).append(")\n");
            sb.append("    y").append(i).append(" = ").append(prev).append(" + m").append(i).append(" * 0.5\n");
            prev = "y" + i;
        }
        return sb.append("loss = sum(").append(prev).append(")\n").toString();
    }
}
