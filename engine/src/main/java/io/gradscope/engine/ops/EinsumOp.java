package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * torch.einsum over letters (no "...", no letter twice in one operand): every operand laid out over
 * all the letters, multiplied with broadcasting, summed over the letters the output leaves out. The
 * VJP of operand i is an einsum of g and the other operands into i's letters (broadcast over a letter
 * only i has); the JVP is the sum over operands of the einsum with that operand's tangent.
 *
 * <p>the product is formed over all letters at once, so a contraction costs memory of the
 * product of every axis size (matmul is the fast path for two operands).
 */
final class EinsumOp extends Op {
    private final String equation;
    private final List<String> in;
    private final String out;
    /** Sizes of output letters no operand has (the VJP's broadcast), else empty. */
    private final Map<Character, Integer> extra;

    EinsumOp(String equation) {
        this(equation, Map.of());
    }

    private EinsumOp(String equation, Map<Character, Integer> extra) {
        String eq = equation.replace(" ", "");
        if (eq.contains(".")) {
            throw new GradscopeException("einsum: '...' is not supported; name every axis");
        }
        String lhs = eq.contains("->") ? eq.substring(0, eq.indexOf("->")) : eq;
        this.in = List.of(lhs.split(",", -1));
        for (String s : in) {
            check(s, "an operand's");
        }
        if (eq.contains("->")) {
            this.out = eq.substring(eq.indexOf("->") + 2);
        } else {
            // implicit: the letters that appear once, in alphabetical order
            StringBuilder b = new StringBuilder();
            lhs.chars().filter(Character::isLetter).distinct().sorted()
                    .filter(c -> lhs.chars().filter(d -> d == c).count() == 1).forEach(c -> b.append((char) c));
            this.out = b.toString();
        }
        check(out, "the output's");
        for (char c : out.toCharArray()) {
            if (!lhs.contains(String.valueOf(c)) && !extra.containsKey(c)) {
                throw new GradscopeException("einsum: output letter '" + c + "' appears in no operand of \"" + equation + "\"");
            }
        }
        this.equation = equation;
        this.extra = extra;
    }

    private static void check(String s, String what) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isLetter(c)) {
                throw new GradscopeException("einsum: " + what + " subscripts take letters only, not '" + c + "'");
            }
            if (s.indexOf(c) != i) {
                throw new GradscopeException("einsum: letter '" + c + "' appears twice in " + what + " subscripts \"" + s + "\"");
            }
        }
    }

    @Override
    public String name() {
        return "einsum";
    }

    @Override
    public String label() {
        return "einsum(\"" + in.stream().reduce((a, b) -> a + "," + b).orElse("") + "->" + out + "\")";
    }

    @Override
    public String rule() {
        return "dAᵢ = einsum(g, the other operands → Aᵢ's letters)";
    }

    /** Every letter with its size, in order of appearance (the output's extra letters last). */
    private Map<Character, Integer> sizes(int[][] shapes) {
        if (shapes.length != in.size()) {
            throw new GradscopeException("einsum: \"" + equation + "\" names " + in.size() + " operands, not " + shapes.length);
        }
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
        return size;
    }

    /** Operands laid out over every letter: per combination of letters a multiply per further operand and an add. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        long all = 1;
        for (int n : sizes(inputs).values()) {
            all *= n;
        }
        return all * in.size();
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        for (int i = 0; i < dtypes.length; i++) {
            Checks.floats("einsum", dtypes, i);
        }
        Map<Character, Integer> size = sizes(shapes);
        int[] o = new int[out.length()];
        for (int a = 0; a < o.length; a++) {
            o[a] = size.get(out.charAt(a));
        }
        return o;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... x) {
        int[][] shapes = Dependencies.shapes(new OpContext(x));
        Map<Character, Integer> size = sizes(shapes);
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
            Tensor t = Raw.copy(x[i].viewPermute(perm)).viewReshape(spread);
            prod = prod == null ? t : Raw.binary(BinaryKind.MUL, prod, t);
        }
        if (!prod.hasShape(full)) {
            prod = Raw.copy(prod.viewExpand(full)); // a letter only the output has (the VJP's broadcast)
        }
        List<Integer> drop = new ArrayList<>();
        for (int a = 0; a < all.size(); a++) {
            if (out.indexOf(all.get(a)) < 0) {
                drop.add(a);
            }
        }
        Tensor kept = drop.isEmpty() ? prod : Raw.reduce(ReduceKind.SUM, prod, drop.stream().mapToInt(Integer::intValue).toArray(), false);
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
        return Raw.copy(kept.viewPermute(perm));
    }

    /** The einsum of g (the output's letters) and the other operands into operand i's letters. */
    private Tensor back(OpContext ctx, Tensor g, int i) {
        int[][] shapes = Dependencies.shapes(ctx);
        Map<Character, Integer> size = sizes(shapes);
        StringBuilder eq = new StringBuilder(out);
        List<Tensor> args = new ArrayList<>();
        args.add(g);
        for (int j = 0; j < in.size(); j++) {
            if (j != i) {
                eq.append(',').append(in.get(j));
                args.add(ctx.input(j));
            }
        }
        eq.append("->").append(in.get(i));
        Map<Character, Integer> more = new LinkedHashMap<>();
        for (char c : in.get(i).toCharArray()) {
            more.put(c, size.get(c));
        }
        return Ops.apply(new EinsumOp(eq.toString(), more), args.toArray(new Tensor[0]));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor[] d = new Tensor[in.size()];
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
        Map<Character, Integer> size = sizes(shapes);
        int[] o = outputShape(shapes, java.util.Collections.nCopies(shapes.length, DType.FLOAT64).toArray(new DType[0]));
        String s = in.get(input);
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
                if (ok) {
                    b.add(c);
                }
            }
            b.endRow();
        }
        return b.build();
    }
}
