package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import java.util.Locale;
import java.util.Random;

/**
 * The generated programs {@code bench-ui} opens: about {@code nodes} graph vertices in one of three
 * shapes. Seeded, so the same size and shape is the same text every time.
 * <ul>
 * <li>{@link Shape#BLOCKS}: a residual chain of identical blocks (what the app folds as "block ×N");</li>
 * <li>{@link Shape#CHAIN}: one long chain of mixed ops with skip connections, nothing repeating;</li>
 * <li>{@link Shape#WIDE}: many short parallel branches of one input, summed pairwise at the end;</li>
 * <li>{@link Shape#RANDOM}: a {@link RandomProgram} of that many statements, from a seed.</li>
 * </ul>
 */
public final class BenchUiPrograms {
    /** The shapes a generated program can have. */
    public enum Shape {
        BLOCKS, CHAIN, WIDE, RANDOM;

        /** The shape named {@code name} (blocks, chain, wide); a user's mistake otherwise. */
        public static Shape parse(String name) {
            for (Shape s : values()) {
                if (s.name().equalsIgnoreCase(name)) {
                    return s;
                }
            }
            throw new GradscopeException("--shape must be blocks, chain, wide or random, not '" + name + "'");
        }
    }

    private static final String[] UNARY = {"tanh", "sin", "sigmoid", "cos", "softplus", "gelu", "relu"};

    private BenchUiPrograms() {
    }

    /** The text of a program of about {@code nodes} vertices in the given shape. */
    public static String program(Shape shape, int nodes) {
        return program(shape, nodes, 1);
    }

    /** As {@link #program(Shape, int)}; {@code seed} picks the random program (the other shapes have one each). */
    public static String program(Shape shape, int nodes, long seed) {
        return switch (shape) {
            case BLOCKS -> blocks(nodes);
            case CHAIN -> chain(nodes);
            case WIDE -> wide(nodes);
            case RANDOM -> RandomProgram.of(nodes, seed);
        };
    }

    /** Five vertices a block: its weight, a matmul, a tanh, a product and a sum; each block's input feeds two ops. */
    static String blocks(int nodes) {
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        String prev = "x";
        int made = 1;
        for (int i = 0; made + 5 < nodes; i++) {
            sb.append("w").append(i).append(" = param(8, 8)\n");
            sb.append("a").append(i).append(" = tanh(").append(prev).append(" @ w").append(i).append(")\n");
            sb.append("b").append(i).append(" = a").append(i).append(" * ").append(prev).append(" + a").append(i).append("\n");
            made += 5;
            prev = "b" + i;
        }
        return sb.append("loss = sum(").append(prev).append(")\n").toString();
    }

    /**
     * One statement a vertex (two for a matmul with its weight): a random unary op, a scale by a
     * random constant, a matmul with a fresh weight, or a skip connection to a value a few steps back.
     */
    static String chain(int nodes) {
        Random r = new Random(30);
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        int made = 1;
        int i = 0;
        String prev = "x";
        while (made + 2 < nodes) {
            String h = "h" + i;
            int pick = r.nextInt(10);
            if (pick < 6) {
                sb.append(h).append(" = ").append(UNARY[r.nextInt(UNARY.length)]).append("(").append(prev).append(")\n");
                made++;
            } else if (pick < 7) {
                sb.append(h).append(" = ").append(prev).append(" * ")
                        .append(String.format(Locale.ROOT, "%.2f", 0.5 + r.nextDouble())).append("\n");
                made++;
            } else if (pick < 9 || i < 8) {
                sb.append("w").append(i).append(" = param(8, 8)\n");
                sb.append(h).append(" = ").append(prev).append(" @ w").append(i).append("\n");
                made += 2;
            } else {
                sb.append(h).append(" = ").append(prev).append(" + h").append(i - 2 - r.nextInt(6)).append("\n");
                made++;
            }
            prev = h;
            i++;
        }
        return sb.append("loss = sum(").append(prev).append(")\n").toString();
    }

    /**
     * Branches of four vertices (a weight, a matmul, two random unary ops) from one input, each
     * reduced to a scalar (one vertex) and summed pairwise (one vertex a branch): six a branch.
     */
    static String wide(int nodes) {
        Random r = new Random(30);
        int branches = Math.max(2, (nodes - 1) / 6);
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        java.util.List<String> level = new java.util.ArrayList<>();
        for (int b = 0; b < branches; b++) {
            sb.append("w").append(b).append(" = param(8, 8)\n");
            sb.append("s").append(b).append(" = sum(").append(UNARY[r.nextInt(UNARY.length)]).append("(")
                    .append(UNARY[r.nextInt(UNARY.length)]).append("(x @ w").append(b).append(")))\n");
            level.add("s" + b);
        }
        int t = 0;
        while (level.size() > 1) {
            java.util.List<String> next = new java.util.ArrayList<>();
            for (int k = 0; k + 1 < level.size(); k += 2) {
                String name = level.size() == 2 ? "loss" : "t" + t++;
                sb.append(name).append(" = ").append(level.get(k)).append(" + ").append(level.get(k + 1)).append("\n");
                next.add(name);
            }
            if (level.size() % 2 == 1) {
                next.add(level.get(level.size() - 1));
            }
            level = next;
        }
        return sb.toString();
    }
}
