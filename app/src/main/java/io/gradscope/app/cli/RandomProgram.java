package io.gradscope.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A random {@code .grad} program of about {@code statements} statements, as a user's might be and
 * as no benchmark was tuned for: mixed ops (unary, scale, matmul with a fresh weight, layer norm,
 * softmax, a mean subtracted, products), residual adds to a value a few or many statements back,
 * side branches, and nested {@code with group(...)} blocks of random lengths with unique names.
 * Nothing repeats, so the app folds nothing. Every statement makes one graph vertex (a leaf or one
 * op), and every value is {@code [4, 8]} (or a weight), so the program always runs. The same seed
 * and size give the same text.
 */
public final class RandomProgram {
    private static final String[] UNARY = {"tanh", "sin", "sigmoid", "cos", "softplus", "gelu", "relu", "abs"};
    private static final String[] WORDS = {"embed", "attn", "mlp", "norm", "proj", "enc", "dec", "head", "gate", "mix",
        "stem", "block", "res", "ffn", "pool", "score"};

    private final Random r;
    private final StringBuilder sb = new StringBuilder();
    /** The values made so far (names), in program order. */
    private final List<String> values = new ArrayList<>();
    private final int[] used = new int[WORDS.length];
    private int made;
    private int depth;

    private RandomProgram(long seed) {
        r = new Random(seed);
    }

    /** The text of a random program of about {@code statements} statements (at least 10), from {@code seed}. */
    public static String of(int statements, long seed) {
        RandomProgram p = new RandomProgram(seed);
        p.line("x = input(4, 8)");
        p.values.add("x");
        p.made = 1;
        while (p.made < statements - 1) {
            p.stretch(statements - 1);
        }
        p.line("loss = mean(" + p.last() + ")");
        return p.sb.toString();
    }

    /** Some statements at this depth, or a group of them (nested up to three deep). */
    private void stretch(int limit) {
        if (depth < 3 && r.nextInt(depth == 0 ? 10 : 4) < 7) {
            String word = WORDS[r.nextInt(WORDS.length)];
            line("with group(\"" + word + "_" + used[indexOf(word)]++ + "\"):");
            depth++;
            int until = Math.min(limit, made + 5 + r.nextInt(depth == 1 ? 120 : 40));
            while (made < until) {
                if (r.nextInt(8) == 0) {
                    stretch(until);
                } else {
                    statement();
                }
            }
            depth--;
            return;
        }
        int until = Math.min(limit, made + 1 + r.nextInt(12));
        while (made < until) {
            statement();
        }
    }

    private static int indexOf(String word) {
        for (int i = 0; i < WORDS.length; i++) {
            if (WORDS[i].equals(word)) {
                return i;
            }
        }
        return -1;
    }

    /** One statement: one vertex, its input the last value or (a side branch) one further back. */
    private void statement() {
        String in = r.nextInt(6) == 0 ? back(12) : last();
        String h = "h" + made;
        int pick = r.nextInt(20);
        if (pick < 8) {
            def(h, UNARY[r.nextInt(UNARY.length)] + "(" + in + ")");
        } else if (pick < 10) {
            def(h, in + " * " + String.format(Locale.ROOT, "%.2f", 0.5 + 0.5 * r.nextDouble()));
        } else if (pick < 13) {
            String w = "w" + made;
            leaf(w, "param(8, 8)");
            def("h" + made, in + " @ " + w);
        } else if (pick < 16) {
            // A residual add: to a value a few statements back, now and then one far back.
            def(h, in + " + " + (r.nextInt(5) == 0 ? back(400) : back(10)));
        } else if (pick < 17) {
            def(h, in + " * " + back(6));
        } else if (pick < 18) {
            String g = "g" + made;
            leaf(g, "param(8, init=\"ones\")");
            String b = "b" + made;
            leaf(b, "param(8, init=\"zeros\")");
            def("h" + made, "layer_norm(" + in + ", " + g + ", " + b + ")");
        } else if (pick < 19) {
            def(h, "softmax(" + in + ", axis=-1)");
        } else {
            String m = "m" + made;
            leaf(m, "mean(" + in + ", axis=-1, keepdim=True)");
            def("h" + made, in + " - " + m);
        }
    }

    /** A statement whose value the next ones may use (a {@code [4, 8]}). */
    private void def(String name, String expr) {
        leaf(name, expr);
        values.add(name);
    }

    /** A statement used once, by the next one (a weight, a mean). */
    private void leaf(String name, String expr) {
        line(name + " = " + expr);
        made++;
    }

    private String last() {
        return values.get(values.size() - 1);
    }

    /** A value up to {@code far} values back (never the last). */
    private String back(int far) {
        int n = values.size();
        if (n < 2) {
            return values.get(0);
        }
        return values.get(n - 2 - r.nextInt(Math.min(far, n - 1)));
    }

    private void line(String text) {
        sb.append("    ".repeat(depth)).append(text).append('\n');
    }
}
