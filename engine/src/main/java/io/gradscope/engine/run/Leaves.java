package io.gradscope.engine.run;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.SplittableRandom;

/** Values for leaves: given by the user, or drawn from a generator seeded by the run's seed and the leaf's name. */
final class Leaves {
    private Leaves() {
    }

    /** The leaf's value: given, read from its values file ({@code values}, or null), or drawn. */
    static Tensor make(Leaf leaf, RunOptions options, java.nio.file.Path values) {
        Tensor given = options.inputs().get(leaf.name());
        if (given != null) {
            return leaf.accept(given, options.dtype());
        }
        if (values != null) {
            return LeafFiles.read(leaf, values, options.dtype());
        }
        long n = Shapes.numel(leaf.shape());
        SplittableRandom r = new SplittableRandom(options.seed() * 0x9E3779B97F4A7C15L + leaf.name().hashCode());
        double[] d = new double[(int) n];
        double fanIn = leaf.shape().length > 0 ? Math.max(leaf.shape()[0], 1) : 1;
        double bound = 1 / Math.sqrt(fanIn);
        switch (leaf.kind()) {
            case LABELS -> {
                for (int i = 0; i < n; i++) {
                    d[i] = r.nextInt(leaf.classes());
                }
                return Tensor.fromDoubles(DType.INT64, d, leaf.shape());
            }
            case INPUT -> {
                for (int i = 0; i < n; i++) {
                    d[i] = gaussian(r);
                }
            }
            case PARAM -> {
                for (int i = 0; i < n; i++) {
                    d[i] = switch (leaf.init()) {
                        case "zeros" -> 0;
                        case "ones" -> 1;
                        case "uniform" -> r.nextDouble(-bound, bound);
                        default -> gaussian(r) * bound;
                    };
                }
            }
        }
        return Tensor.fromDoubles(options.dtype(), d, leaf.shape());
    }

    private static double gaussian(SplittableRandom r) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        double u = 1 - r.nextDouble();
        double v = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
