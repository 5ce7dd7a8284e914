package io.gradscope.engine.forward;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.Function;

/**
 * Hessian-vector products of a scalar function, two ways: forward-over-reverse (the JVP of the
 * gradient: tangents carried through the backward pass) and reverse-over-reverse (the gradient of
 * ⟨∇f, v⟩, by a backward pass over the recorded gradient graph).
 *
 * <pre>{@code
 * Tensor hv = Hvp.of(x -> Ops.sum(Ops.mul(x, Ops.mul(x, x))), x, v, Hvp.Method.FORWARD_OVER_REVERSE);
 * }</pre>
 */
public final class Hvp {
    private Hvp() {
    }

    /** How to compute H·v. */
    public enum Method {
        /** The JVP of the gradient: one forward pass and one backward pass, both carrying tangents. */
        FORWARD_OVER_REVERSE("fwd-rev"),
        /** The gradient of ⟨∇f, v⟩: a backward pass recording its graph, then a second backward pass. */
        REVERSE_OVER_REVERSE("rev-rev");

        private final String flag;

        Method(String flag) {
            this.flag = flag;
        }

        /** The name on the command line ({@code fwd-rev}, {@code rev-rev}). */
        public String flag() {
            return flag;
        }
    }

    /** H·v for scalar {@code f} at {@code x}; shaped like x. */
    public static Tensor of(Function<Tensor, Tensor> f, Tensor x, Tensor v, Method method) {
        Tensor leaf = Tensor.fromDoubles(x.dtype(), x.device(), x.toDoubleArray(), x.shape()).setRequiresGrad(true);
        if (method == Method.FORWARD_OVER_REVERSE) {
            try (Tangents.Level level = Tangents.open()) {
                Tangents.set(leaf, v);
                Tensor y = f.apply(leaf);
                Backward.run(y);
                return orZeros(Tangents.of(leaf.grad()), x);
            }
        }
        Tensor y = f.apply(leaf);
        Backward.startCreatingGraph(y).finish();
        Tensor g = leaf.grad();
        if (g == null || !g.requiresGrad()) {
            return Tensor.zeros(x.dtype(), x.device(), x.shape());
        }
        leaf.setGrad(null);
        Backward.run(Ops.sum(Ops.mul(g, v)));
        return orZeros(leaf.grad(), x);
    }

    private static Tensor orZeros(Tensor t, Tensor like) {
        return t != null ? t : Tensor.zeros(like.dtype(), like.device(), like.shape());
    }

    /** The dense Hessian of scalar {@code f} at {@code x} (n x n for n elements), one HVP per column. */
    public static double[][] hessian(Function<Tensor, Tensor> f, Tensor x, Method method) {
        int n = (int) x.numel();
        double[][] h = new double[n][];
        for (int j = 0; j < n; j++) {
            double[] e = new double[n];
            e[j] = 1;
            h[j] = of(f, x, Tensor.fromDoubles(x.dtype(), x.device(), e, x.shape()), method).toDoubleArray();
        }
        // Column j of H is H·eⱼ; transpose so that h[i][j] = ∂²f/∂xᵢ∂xⱼ.
        double[][] out = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                out[i][j] = h[j][i];
            }
        }
        return out;
    }
}
