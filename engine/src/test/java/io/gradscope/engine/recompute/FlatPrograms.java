package io.gradscope.engine.recompute;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random programs with one op per statement (so a name's last reader is one op), values of one
 * shape [4, 5], parameters, an input with a gradient and one without, labels, fan-out, and
 * checkpoint blocks; the objective is the mean of the last value.
 */
final class FlatPrograms {
    private FlatPrograms() {
    }

    static String generate(long seed) {
        Random r = new Random(seed);
        StringBuilder src = new StringBuilder();
        src.append("x = input(4, 5)\n").append("u = input(4, 5, grad=True)\n").append("W = param(5, 5)\n")
                .append("w = param(5)\n").append("b = param(5, init=\"zeros\")\n").append("y = labels(4, classes=5)\n");
        List<String> names = new ArrayList<>(List.of("x", "u"));
        int n = 6 + r.nextInt(14);
        boolean inBlock = false;
        int blocks = 0;
        for (int i = 0; i < n; i++) {
            if (!inBlock && blocks < 3 && r.nextInt(4) == 0) {
                src.append("with checkpoint():\n");
                inBlock = true;
                blocks++;
            } else if (inBlock && r.nextInt(3) == 0) {
                inBlock = false;
            }
            String a = pick(r, names);
            String c = pick(r, names);
            String e = switch (r.nextInt(13)) {
                case 0 -> "tanh(" + a + ")";
                case 1 -> "exp(" + a + ")";
                case 2 -> "relu(" + a + ")";
                case 3 -> "sigmoid(" + a + ")";
                case 4 -> a + " * " + c;
                case 5 -> a + " + " + c;
                case 6 -> a + " - " + c;
                case 7 -> a + " @ W";
                case 8 -> "softmax(" + a + ")";
                case 9 -> "layer_norm(" + a + ", w, b)";
                case 10 -> "transpose(transpose(" + a + "))";
                case 11 -> "sin(" + a + ")";
                default -> a + " * w";
            };
            String name = "v" + i;
            src.append(inBlock ? "    " : "").append(name).append(" = ").append(e).append('\n');
            names.add(name);
        }
        String last = names.get(names.size() - 1);
        if (r.nextBoolean()) {
            src.append("loss = cross_entropy(").append(last).append(", y)\n");
        } else {
            src.append("loss = mean(").append(last).append(")\n");
        }
        return src.toString();
    }

    private static String pick(Random r, List<String> names) {
        // Recent values more often: chains as well as fan-out.
        int k = names.size();
        return r.nextInt(3) == 0 ? names.get(r.nextInt(k)) : names.get(Math.max(0, k - 1 - r.nextInt(Math.min(3, k))));
    }
}
