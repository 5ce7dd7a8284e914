package io.gradscope.app.view;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The bundled examples (assets/examples, on the class path), the course's, and a large generated one. */
final class Examples {
    static final List<String> TOP = List.of("backprop_chain", "mlp", "softmax", "layernorm", "rmsnorm",
            "causal_attention", "transformer_block", "residual_checkpoint", "dropout");
    /** assets/examples/course, in order (a test keeps this list equal to the folder). */
    static final List<String> COURSE = List.of("01_dual_numbers", "02_scalar_values", "03_matmul_vjp", "04_softmax",
            "05_layernorm", "06_rmsnorm", "07_cross_entropy", "08_gradient_check", "09_hessian_vector", "10_checkpointing");

    private Examples() {
    }

    /** The text of a bundled example, by its path under examples/ without ".grad" ("mlp", "course/04_softmax"). */
    static String text(String name) {
        try (InputStream in = Examples.class.getResourceAsStream("/examples/" + name + ".grad")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("example " + name + " is missing", e);
        }
    }

    /** A deep residual network of {@code blocks} identical blocks (5 nodes each, 3 more around them). */
    static String residualChain(int blocks) {
        StringBuilder sb = new StringBuilder("# A deep residual network: " + blocks + " identical blocks, " + (5 * blocks + 3) + " nodes.\n"
                + "#\n# Each block is h = h + 0.5 * tanh(h @ W): its own weight, a matmul, a tanh, a scale and the\n"
                + "# residual add. The graph view folds the blocks into one node \"block ×" + blocks + "\": double-click\n"
                + "# it to unfold them, View > Fold Repeats to fold them again.\n"
                + "x = input(16, 32)\nt = input(16, 32)\n");
        String prev = "x";
        for (int i = 1; i <= blocks; i++) {
            sb.append("W").append(i).append(" = param(32, 32)\n");
            sb.append("h").append(i).append(" = ").append(prev).append(" + 0.5 * tanh(").append(prev).append(" @ W").append(i).append(")\n");
            prev = "h" + i;
        }
        return sb.append("loss = mse(").append(prev).append(", t)\n").toString();
    }
}
