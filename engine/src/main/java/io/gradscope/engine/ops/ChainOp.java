package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An op made of other ops, one node in the graph: its steps (each an op of the table on the inputs and
 * earlier steps' values) follow from the input shapes. Its forward runs the steps' forwards;
 * its VJP runs their VJPs in reverse, its JVP their JVPs in order, and its dependency rule composes theirs,
 * so each is as exact as the steps' (conv3d and the 3-D pools, written with 2-D windows: {@link Conv3dPool3d}).
 * Where a gradient of the gradient is being made the steps are applied again as recorded ops, so the
 * VJP's values reach the inputs.
 */
abstract class ChainOp extends Op {

    /** One step: {@code op} on the values {@code args} (inputs first, then steps). */
    record Step(Op op, int[] args) {
    }

    /** The steps being written, with every value's shape. */
    static final class Plan {
        final List<Step> steps = new ArrayList<>();
        final List<int[]> shapes = new ArrayList<>();
        private final DType dtype;

        Plan(int[][] inputs, DType dtype) {
            shapes.addAll(List.of(inputs));
            this.dtype = dtype;
        }

        /** The op named {@code name} with these attributes on the values {@code args}; its value's index. */
        int add(String name, Map<String, Object> attrs, int... args) {
            Op op = OpRegistry.create(name, attrs);
            int[][] in = new int[args.length][];
            DType[] dt = new DType[args.length];
            for (int i = 0; i < args.length; i++) {
                in[i] = shapes.get(args[i]);
                dt[i] = dtype;
            }
            shapes.add(op.outputShape(in, dt));
            steps.add(new Step(op, args));
            return shapes.size() - 1;
        }

        int[] shape(int value) {
            return shapes.get(value);
        }
    }

    /** The steps for inputs of these shapes (checked here: a bad shape or attribute throws). */
    abstract Plan plan(int[][] shapes, DType dtype);

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.floats(name(), dtypes, java.util.stream.IntStream.range(0, dtypes.length).toArray());
        Plan p = plan(shapes, dtypes[0]);
        return p.shapes.get(p.shapes.size() - 1).clone();
    }

    @Override
    public long flops(int[][] inputs, int[] output) {
        Plan p = plan(inputs, DType.FLOAT64);
        long f = 0;
        int n = inputs.length;
        for (int s = 0; s < p.steps.size(); s++) {
            Step st = p.steps.get(s);
            int[][] in = new int[st.args().length][];
            for (int i = 0; i < in.length; i++) {
                in[i] = p.shapes.get(st.args()[i]);
            }
            f += st.op().flops(in, p.shapes.get(n + s));
        }
        return f;
    }

    /** The steps run: every value, each step's context, and whether a value depends on an input that needs a gradient. */
    private record Run(Plan plan, List<Tensor> values, List<OpContext> contexts, boolean[] depends) {
    }

    /**
     * Runs the steps on {@code in}; {@code recorded}: each step applied again as a recorded op where its value depends
     * on an input that needs a gradient (a gradient of the gradient is being made).
     */
    private Run run(Tensor[] in, boolean[] needs, boolean recorded) {
        int n = in.length;
        int[][] shapes = new int[n][];
        for (int i = 0; i < n; i++) {
            shapes[i] = in[i].shape();
        }
        Plan p = plan(shapes, in[0].dtype());
        List<Tensor> values = new ArrayList<>(List.of(in));
        List<OpContext> contexts = new ArrayList<>();
        boolean[] depends = java.util.Arrays.copyOf(needs, n + p.steps.size());
        for (int s = 0; s < p.steps.size(); s++) {
            Step st = p.steps.get(s);
            Tensor[] args = new Tensor[st.args().length];
            boolean[] argNeeds = new boolean[args.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = values.get(st.args()[i]);
                argNeeds[i] = depends[st.args()[i]];
                depends[n + s] |= argNeeds[i];
            }
            OpContext c = new OpContext(args);
            c.overrideNeedsGrad(argNeeds);
            Tensor y;
            try (var off = GradMode.disable()) {
                y = st.op().forward(c, args);
            }
            c.setOutput(y);
            contexts.add(c);
            values.add(recorded && depends[n + s] ? Ops.apply(st.op(), args) : y);
        }
        return new Run(p, values, contexts, depends);
    }

    private static boolean[] needs(OpContext ctx) {
        boolean[] needs = new boolean[ctx.inputCount()];
        for (int i = 0; i < needs.length; i++) {
            needs[i] = ctx.needsGrad(i);
        }
        return needs;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Run r = run(in, new boolean[in.length], false);
        Tensor y = r.values().get(r.values().size() - 1);
        return y.isContiguous() ? y : Unrecorded.copy(y);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        int n = ctx.inputCount();
        Run r = run(ctx.inputValues(), needs(ctx), Ops.differentiating());
        Tensor[] grads = new Tensor[r.values().size()];
        grads[grads.length - 1] = g;
        for (int s = r.plan().steps.size() - 1; s >= 0; s--) {
            Step st = r.plan().steps.get(s);
            if (grads[n + s] == null || !r.depends()[n + s]) {
                continue;
            }
            Tensor[] d = st.op().vjp(r.contexts().get(s), grads[n + s]);
            for (int i = 0; i < d.length; i++) {
                int a = st.args()[i];
                if (d[i] != null && r.depends()[a]) {
                    grads[a] = grads[a] == null ? d[i] : Ops.add(grads[a], d[i]);
                }
            }
        }
        Tensor[] out = new Tensor[n];
        for (int i = 0; i < n; i++) {
            out[i] = ctx.needsGrad(i) ? grads[i] : null;
        }
        return out;
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        int n = ctx.inputCount();
        boolean[] has = new boolean[n];
        for (int i = 0; i < n; i++) {
            has[i] = t[i] != null;
        }
        Run r = run(ctx.inputValues(), has, Ops.differentiating());
        Tensor[] tangents = new Tensor[r.values().size()];
        System.arraycopy(t, 0, tangents, 0, n);
        for (int s = 0; s < r.plan().steps.size(); s++) {
            Step st = r.plan().steps.get(s);
            if (!r.depends()[n + s]) {
                continue;
            }
            Tensor[] ts = new Tensor[st.args().length];
            for (int i = 0; i < ts.length; i++) {
                Tensor v = r.values().get(st.args()[i]);
                // a value no tangent reaches: zeros (a step's JVP may read every tangent)
                ts[i] = tangents[st.args()[i]] != null ? tangents[st.args()[i]] : Tensor.zeros(v.dtype(), v.device(), v.shape());
            }
            tangents[n + s] = st.op().jvp(r.contexts().get(s), ts);
        }
        Tensor y = tangents[tangents.length - 1];
        return y != null ? y : Tensor.zeros(ctx.input(0).dtype(), ctx.input(0).device(), r.plan().shapes.get(r.plan().shapes.size() - 1));
    }

    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        Plan p = plan(shapes, DType.FLOAT64);
        return compose(p, input, shapes.length, (s, k) -> {
            Step st = p.steps.get(s);
            int[][] in = new int[st.args().length][];
            for (int i = 0; i < in.length; i++) {
                in[i] = p.shapes.get(st.args()[i]);
            }
            return st.op().dependencies(k, in);
        });
    }

    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        int n = ctx.inputCount();
        boolean[] all = new boolean[n];
        java.util.Arrays.fill(all, true);
        Run r;
        try (var off = GradMode.disable()) {
            r = run(ctx.inputValues(), all, false);
        }
        return compose(r.plan(), input, n, (s, k) -> r.plan().steps.get(s).op().localDependencies(k, r.contexts().get(s)));
    }

    /** Step {@code s}'s dependencies on its argument {@code k}. */
    private interface StepPattern {
        Pattern of(int s, int k);
    }

    /** The output's dependencies on input {@code input}: the steps' composed, union over the paths. */
    private static Pattern compose(Plan p, int input, int n, StepPattern step) {
        Pattern[] pat = new Pattern[p.shapes.size()];
        pat[input] = Pattern.identity(Dependencies.numel(p.shapes.get(input)));
        for (int s = 0; s < p.steps.size(); s++) {
            Step st = p.steps.get(s);
            for (int k = 0; k < st.args().length; k++) {
                Pattern a = pat[st.args()[k]];
                if (a != null) {
                    Pattern q = step.of(s, k).times(a);
                    pat[n + s] = pat[n + s] == null ? q : union(pat[n + s], q);
                }
            }
        }
        Pattern out = pat[pat.length - 1];
        return out != null ? out : Pattern.empty(Dependencies.numel(p.shapes.get(pat.length - 1)),
                Dependencies.numel(p.shapes.get(input)));
    }

    private static Pattern union(Pattern a, Pattern b) {
        Pattern.Builder u = new Pattern.Builder(a.rows(), a.cols());
        for (int i = 0; i < a.rows(); i++) {
            for (int c : a.row(i)) {
                u.add(c);
            }
            for (int c : b.row(i)) {
                u.add(c); // the builder sorts the row and merges repeats
            }
            u.endRow();
        }
        return u.build();
    }
}
