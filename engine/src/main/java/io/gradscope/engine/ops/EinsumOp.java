package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * torch.einsum: every operand laid out over all the letters, multiplied with broadcasting, summed over
 * the letters the output leaves out. "..." and a letter twice in one operand (a diagonal) are spelled out
 * by {@link EinsumSubscripts}: the diagonal's pair of letters multiplies the product by an identity over
 * them. The VJP of operand i is an einsum of g and the other operands into i's letters (broadcast over a
 * letter only i has, and the same identities, so a diagonal's gradient lands on the diagonal); the JVP is
 * the sum over operands of the einsum with that operand's tangent.
 *
 * <p>the product is formed over all letters at once, so a contraction costs memory of the
 * product of every axis size (matmul is the fast path for two operands).
 */
final class EinsumOp extends Op {
    private final String equation;
    /** The subscripts where they do not depend on the shapes (no "..."), else null. */
    private final EinsumSubscripts fixed;
    /** Sizes of output letters no operand has (the VJP's broadcast), else empty. */
    private final Map<Character, Integer> extra;

    EinsumOp(String equation) {
        this.equation = equation;
        this.extra = Map.of();
        EinsumSubscripts.operands(equation);
        this.fixed = EinsumSubscripts.needsShapes(equation) ? null : EinsumSubscripts.of(equation, null);
    }

    private EinsumOp(EinsumSubscripts fixed, Map<Character, Integer> extra) {
        this.fixed = fixed;
        this.extra = extra;
        this.equation = String.join(",", fixed.in()) + "->" + fixed.out();
    }

    /** The subscripts for operands of these shapes. */
    private EinsumSubscripts subs(int[][] shapes) {
        if (shapes.length != (fixed != null ? fixed.in().size() : EinsumSubscripts.operands(equation).size())) {
            throw new GradscopeException("einsum: \"" + equation + "\" names "
                    + (fixed != null ? fixed.in().size() : EinsumSubscripts.operands(equation).size()) + " operands, not " + shapes.length);
        }
        return fixed != null ? fixed : EinsumSubscripts.of(equation, shapes);
    }

    @Override
    public String name() {
        return "einsum";
    }

    @Override
    public String label() {
        boolean plain = fixed != null && fixed.pairs().isEmpty();
        return "einsum(\"" + (plain ? String.join(",", fixed.in()) + "->" + fixed.out() : equation) + "\")";
    }

    @Override
    public String rule() {
        return "dAᵢ = einsum(g, the other operands → Aᵢ's letters)";
    }

    /** Every letter with its size, in order of appearance (the output's extra letters last). */
    private Map<Character, Integer> sizes(EinsumSubscripts sub, int[][] shapes) {
        List<String> in = sub.in();
        Map<Character, Integer> size = new LinkedHashMap<>();
        for (int i = 0; i < shapes.length; i++) {
            String s = in.get(i);
            if (s.length() != shapes[i].length) {
                throw new GradscopeException("einsum: operand " + i + " of shape " + Shapes.str(shapes[i]) + " does not have "
                        + s.length() + " axes (\"" + s + "\")");
            }
            for (int a = 0; a < s.length(); a++) {
                Integer prev = size.putIfAbsent(s.charAt(a), shapes[i][a]);
                if (prev != null && prev != shapes[i][a]) {
                    throw new GradscopeException("einsum: letter '" + s.charAt(a) + "' has sizes " + prev + " and " + shapes[i][a]);
                }
            }
        }
        extra.forEach(size::putIfAbsent);
        for (char[] p : sub.pairs()) {
            if (!size.get(p[0]).equals(size.get(p[1]))) {
                throw new GradscopeException("einsum: letter '" + p[0] + "' has sizes " + size.get(p[0]) + " and " + size.get(p[1]));
            }
        }
        return size;
    }

    /** Operands laid out over every letter: per combination of letters a multiply per further operand and an add. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        long all = 1;
        for (int n : sizes(subs(inputs), inputs).values()) {
            all *= n;
        }
        return all * inputs.length;
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        for (int i = 0; i < dtypes.length; i++) {
            Checks.floats("einsum", dtypes, i);
        }
        EinsumSubscripts sub = subs(shapes);
        String out = sub.out();
        Map<Character, Integer> size = sizes(sub, shapes);
        int[] o = new int[out.length()];
        for (int a = 0; a < o.length; a++) {
            o[a] = size.get(out.charAt(a));
        }
        return o;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... x) {
        int[][] shapes = Dependencies.shapes(new OpContext(x));
        EinsumSubscripts sub = subs(shapes);
        List<String> in = sub.in();
        String out = sub.out();
        Map<Character, Integer> size = sizes(sub, shapes);
        List<Character> all = new ArrayList<>(size.keySet());
        int[] full = all.stream().mapToInt(size::get).toArray();
        Tensor prod = null;
        for (int i = 0; i < x.length; i++) {
            String s = in.get(i);
            // the operand's axes in the order of `all`, then 1 for each letter it lacks
            List<Character> mine = new ArrayList<>();
            for (char c : all) {
                if (s.indexOf(c) >= 0) {
                    mine.add(c);
                }
            }
            int[] perm = mine.stream().mapToInt(c -> s.indexOf(c)).toArray();
            int[] spread = all.stream().mapToInt(c -> s.indexOf(c) >= 0 ? size.get(c) : 1).toArray();
            Tensor t = Unrecorded.copy(x[i].viewPermute(perm)).viewReshape(spread);
            prod = prod == null ? t : Unrecorded.binary(BinaryKind.MUL, prod, t);
        }
        for (char[] p : sub.pairs()) {
            prod = Unrecorded.binary(BinaryKind.MUL, prod, identity(prod, all, size, p));
        }
        if (!prod.hasShape(full)) {
            prod = Unrecorded.copy(prod.viewExpand(full)); // a letter only the output has (the VJP's broadcast)
        }
        List<Integer> drop = new ArrayList<>();
        for (int a = 0; a < all.size(); a++) {
            if (out.indexOf(all.get(a)) < 0) {
                drop.add(a);
            }
        }
        Tensor kept = drop.isEmpty() ? prod : Unrecorded.reduce(ReduceKind.SUM, prod, drop.stream().mapToInt(Integer::intValue).toArray(), false);
        List<Character> left = new ArrayList<>();
        for (char c : all) {
            if (out.indexOf(c) >= 0) {
                left.add(c);
            }
        }
        int[] perm = new int[out.length()];
        for (int a = 0; a < perm.length; a++) {
            perm[a] = left.indexOf(out.charAt(a));
        }
        return Unrecorded.copy(kept.viewPermute(perm));
    }

    /** 1 where the pair's two letters agree, over every letter (1 along the others). */
    private static Tensor identity(Tensor like, List<Character> all, Map<Character, Integer> size, char[] pair) {
        int n = size.get(pair[0]);
        double[] eye = new double[n * n];
        for (int k = 0; k < n; k++) {
            eye[k * n + k] = 1;
        }
        int[] shape = all.stream().mapToInt(c -> c == pair[0] || c == pair[1] ? n : 1).toArray();
        Tensor t = Tensor.fromDoubles(like.dtype(), like.device(), eye, n, n);
        // the pair's letters in the order of `all`
        return all.indexOf(pair[0]) < all.indexOf(pair[1]) ? t.viewReshape(shape) : Unrecorded.copy(t.viewPermute(new int[] {1, 0})).viewReshape(shape);
    }

    /** The einsum of g (the output's letters) and the other operands into operand i's letters, with the same diagonals. */
    private Tensor back(OpContext ctx, Tensor g, int i) {
        int[][] shapes = Dependencies.shapes(ctx);
        EinsumSubscripts sub = subs(shapes);
        List<String> in = sub.in();
        Map<Character, Integer> size = sizes(sub, shapes);
        List<String> ins = new ArrayList<>();
        ins.add(sub.out());
        List<Tensor> args = new ArrayList<>();
        args.add(g);
        for (int j = 0; j < in.size(); j++) {
            if (j != i) {
                ins.add(in.get(j));
                args.add(ctx.input(j));
            }
        }
        Map<Character, Integer> more = new LinkedHashMap<>();
        for (char c : in.get(i).toCharArray()) {
            more.put(c, size.get(c));
        }
        EinsumSubscripts b = new EinsumSubscripts(List.copyOf(ins), in.get(i), sub.pairs());
        return Ops.apply(new EinsumOp(b, more), args.toArray(new Tensor[0]));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor[] d = new Tensor[ctx.inputCount()];
        for (int i = 0; i < d.length; i++) {
            d[i] = ctx.needsGrad(i) ? back(ctx, g, i) : null;
        }
        return d;
    }

    @Override
    public String jvpRule() {
        return "ẏ = Σᵢ einsum(operands with Aᵢ replaced by Ȧᵢ)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor y = null;
        for (int i = 0; i < t.length; i++) {
            if (t[i] == null) {
                continue;
            }
            Tensor[] args = new Tensor[t.length];
            for (int j = 0; j < t.length; j++) {
                args[j] = j == i ? t[i] : ctx.input(j);
            }
            Tensor term = Ops.apply(this, args);
            y = y == null ? term : Ops.add(y, term);
        }
        return y;
    }

    /** Output element on operand i's elements that agree with it on their shared letters. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        EinsumSubscripts sub = subs(shapes);
        String out = sub.out();
        int[] o = outputShape(shapes, java.util.Collections.nCopies(shapes.length, DType.FLOAT64).toArray(new DType[0]));
        String s = sub.in().get(input);
        int rows = Dependencies.numel(o);
        int cols = Dependencies.numel(shapes[input]);
        int[] os = Shapes.contiguousStrides(o);
        int[] is = Shapes.contiguousStrides(shapes[input]);
        Pattern.Builder b = new Pattern.Builder(rows, cols);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                boolean ok = true;
                for (int a = 0; ok && a < s.length(); a++) {
                    int k = out.indexOf(s.charAt(a));
                    ok = k < 0 || (r / os[k]) % o[k] == (c / is[a]) % shapes[input][a];
                }
                for (int p = 0; ok && p < sub.pairs().size(); p++) {
                    // a diagonal: its two letters agree wherever the output and the operand tell both
                    int v0 = letter(sub.pairs().get(p)[0], r, os, o, out, c, is, shapes[input], s);
                    int v1 = letter(sub.pairs().get(p)[1], r, os, o, out, c, is, shapes[input], s);
                    ok = v0 < 0 || v1 < 0 || v0 == v1;
                }
                if (ok) {
                    b.add(c);
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** The index of letter {@code l} at output element r or operand element c, or −1 where neither has it. */
    private static int letter(char l, int r, int[] os, int[] o, String out, int c, int[] is, int[] shape, String s) {
        int k = out.indexOf(l);
        if (k >= 0) {
            return (r / os[k]) % o[k];
        }
        int a = s.indexOf(l);
        return a >= 0 ? (c / is[a]) % shape[a] : -1;
    }
}
