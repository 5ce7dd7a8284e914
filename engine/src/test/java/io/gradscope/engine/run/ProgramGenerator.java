package io.gradscope.engine.run;

import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.ops.UnaryOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Writes random valid programs from the shape rules: broadcasting, views, reductions, matmuls,
 * norms, attention and fan-out (values are reused). Values stay where every op is smooth.
 */
final class ProgramGenerator {
    private record Var(String name, int[] shape) {
    }

    private final Random r;
    private final StringBuilder src = new StringBuilder();
    private final List<Var> pool = new ArrayList<>();
    private int counter;
    private int params;

    ProgramGenerator(long seed) {
        this.r = new Random(seed);
    }

    static String generate(long seed) {
        return new ProgramGenerator(seed).build();
    }

    private String fresh(String prefix) {
        return prefix + (counter++);
    }

    private static String dims(int[] s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length; i++) {
            sb.append(i > 0 ? ", " : "").append(s[i]);
        }
        return sb.toString();
    }

    private Var declare(int[] shape) {
        String n = fresh("p");
        params++;
        src.append(n).append(" = param(").append(dims(shape)).append(")\n");
        Var v = new Var(n, shape);
        pool.add(v);
        return v;
    }

    private Var emit(String expr, int[] shape) {
        String n = fresh("v");
        src.append(n).append(" = ").append(expr).append("\n");
        Var v = new Var(n, shape);
        pool.add(v);
        return v;
    }

    private int[] randomShape(int maxRank) {
        int[] s = new int[1 + r.nextInt(maxRank)];
        for (int i = 0; i < s.length; i++) {
            s[i] = 1 + r.nextInt(3);
        }
        return s;
    }

    private Var pick() {
        // Later values more often, so chains grow deep.
        int i = pool.size() - 1 - Math.min(pool.size() - 1, (int) Math.abs(r.nextGaussian() * 2));
        return pool.get(i);
    }

    private String build() {
        int leaves = 1 + r.nextInt(2);
        for (int i = 0; i < leaves; i++) {
            declare(randomShape(3));
        }
        if (r.nextBoolean()) {
            String n = fresh("x");
            int[] s = randomShape(2);
            src.append(n).append(" = input(").append(dims(s)).append(")\n");
            pool.add(new Var(n, s));
        }
        boolean grouped = r.nextInt(4) == 0;
        int steps = 2 + r.nextInt(6);
        if (grouped) {
            src.append(r.nextBoolean() ? "with group(\"g\"):\n" : "with checkpoint():\n");
            int mark = src.length();
            for (int i = 0; i < steps; i++) {
                step();
            }
            String body = src.substring(mark);
            src.setLength(mark);
            for (String line : body.split("\n")) {
                src.append("    ").append(line).append("\n");
            }
        } else {
            for (int i = 0; i < steps; i++) {
                step();
            }
        }
        Var a = pool.get(pool.size() - 1);
        Var b = pick();
        src.append("obj = sum(").append(a.name).append(" * ").append(a.name).append(") + mean(tanh(").append(b.name)
                .append("))\n");
        return src.toString();
    }

    private static final List<String> ELEMENTWISE = OpSpecs.all().stream()
            .filter(spec -> spec.callable() && spec.elementwise()).map(OpSpec::name).toList();

    private void step() {
        Var x = pick();
        int[] s = x.shape;
        int rank = s.length;
        if (rank == 0) {
            if (r.nextBoolean()) {
                emit("reshape(" + x.name + ", 1, 1)", new int[] {1, 1});
            } else {
                emit(x.name + " * sigmoid(" + x.name + ")", s);
            }
            return;
        }
        switch (r.nextInt(16)) {
            case 0 -> {
                // Every elementwise function of the op specs; log and sqrt get positive arguments, exp a bounded one.
                String fn = ELEMENTWISE.get(r.nextInt(ELEMENTWISE.size()));
                boolean positive = ((UnaryOp) OpRegistry.create(fn, Map.of())).positiveDomain();
                String arg = positive ? x.name + " * " + x.name + " + 0.5" : fn.equals("exp") ? "tanh(" + x.name + ")" : x.name;
                emit(fn + "(" + arg + ")", s);
            }
            case 1 -> emit("log(" + x.name + " * " + x.name + " + 1)", s);
            case 2 -> emit("sqrt(" + x.name + " * " + x.name + " + 0.5) / (" + x.name + " * " + x.name + " + 1)", s);
            case 3 -> {
                // Broadcasting both ways: a partner with some axes set to 1 and maybe fewer axes.
                int drop = r.nextInt(rank + 1);
                int[] t = Arrays.copyOfRange(s, drop, rank);
                for (int i = 0; i < t.length; i++) {
                    if (r.nextInt(3) == 0) {
                        t[i] = 1;
                    }
                }
                Var y = declare(t);
                String op = new String[] {"+", "-", "*"}[r.nextInt(3)];
                emit(r.nextBoolean() ? x.name + " " + op + " " + y.name : y.name + " " + op + " " + x.name, s);
            }
            case 4 -> {
                int n = 1 + r.nextInt(3);
                Var w = declare(new int[] {s[rank - 1], n});
                int[] out = s.clone();
                out[rank - 1] = n;
                emit(x.name + " @ " + w.name, out);
            }
            case 5 -> {
                String fn = new String[] {"sum", "mean", "amax", "logsumexp"}[r.nextInt(4)];
                int axis = r.nextInt(rank) - (r.nextBoolean() ? rank : 0);
                boolean keep = r.nextBoolean();
                int a = axis < 0 ? axis + rank : axis;
                int[] out = keep ? s.clone() : new int[rank - 1];
                if (keep) {
                    out[a] = 1;
                } else {
                    for (int i = 0, j = 0; i < rank; i++) {
                        if (i != a) {
                            out[j++] = s[i];
                        }
                    }
                }
                emit(fn + "(" + x.name + ", axis=" + axis + (keep ? ", keepdim=True" : "") + ")", out);
            }
            case 6 -> emit((r.nextBoolean() ? "softmax(" : "log_softmax(") + x.name + ", axis=" + (r.nextInt(rank) - rank) + ")", s);
            case 7 -> {
                if (rank >= 2) {
                    int[] out = s.clone();
                    out[rank - 1] = s[rank - 2];
                    out[rank - 2] = s[rank - 1];
                    emit("transpose(" + x.name + ")", out);
                } else {
                    emit("reshape(" + x.name + ", 1, -1)", new int[] {1, s[0]});
                }
            }
            case 8 -> {
                int[] p = new int[rank];
                for (int i = 0; i < rank; i++) {
                    p[i] = rank - 1 - i;
                }
                int[] out = new int[rank];
                for (int i = 0; i < rank; i++) {
                    out[i] = s[p[i]];
                }
                emit("permute(" + x.name + ", " + dims(p) + ")", out);
            }
            case 9 -> {
                long n = 1;
                for (int d : s) {
                    n *= d;
                }
                emit("reshape(" + x.name + ", -1)", new int[] {(int) n});
            }
            case 10 -> {
                int a = r.nextInt(rank);
                if (s[a] >= 2) {
                    int start = r.nextInt(s[a] - 1);
                    int stop = start + 1 + r.nextInt(s[a] - start);
                    int[] out = s.clone();
                    out[a] = stop - start;
                    emit("slice(" + x.name + ", " + a + ", " + start + ", " + stop + ")", out);
                } else {
                    int[] out = s.clone();
                    out[a] = 2 * s[a];
                    emit("concat(" + x.name + ", " + x.name + ", axis=" + a + ")", out);
                }
            }
            case 11 -> {
                int[] out = new int[rank + 1];
                out[0] = 2;
                System.arraycopy(s, 0, out, 1, rank);
                emit("broadcast_to(" + x.name + ", " + dims(out) + ")", out);
            }
            case 12 -> {
                int d = s[rank - 1];
                Var w = declare(new int[] {d});
                if (r.nextBoolean() && d >= 2) {
                    Var b = declare(new int[] {d});
                    emit("layer_norm(" + x.name + ", " + w.name + ", " + b.name + ")", s);
                } else {
                    emit("rms_norm(" + x.name + ", " + w.name + ")", s);
                }
            }
            case 13 -> {
                if (rank >= 2) {
                    emit("attention(" + x.name + ", " + x.name + ", " + x.name + (r.nextBoolean() ? ", causal=True" : "") + ")", s);
                } else {
                    emit(x.name + " ** 2", s);
                }
            }
            case 14 -> emit("(" + x.name + " * " + x.name + " + 1) ** 0.5 - " + x.name + " / 2", s);
            default -> {
                // Fan-out: two uses of one value in one statement.
                emit(x.name + " * tanh(" + x.name + ") + " + x.name, s);
            }
        }
    }
}
