package io.gradscope.app.service;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;
import java.util.Random;

/**
 * A direction in a leaf's space, as the command line and the window name it: {@code ones}, {@code random}
 * (standard normal, from the run's seed), {@code onehot:I} (element I of the flattened leaf) or a
 * {@code .npy} file of the leaf's shape.
 */
public final class Direction {
    private Direction() {
    }

    public static Tensor parse(String option, String spec, int[] shape, DType dtype, long seed) {
        long n = Shapes.numel(shape);
        double[] d = new double[(int) n];
        if (spec.equals("ones")) {
            java.util.Arrays.fill(d, 1);
        } else if (spec.equals("random")) {
            Random r = new Random(seed ^ 0x5DEECE66DL);
            for (int i = 0; i < d.length; i++) {
                d[i] = r.nextGaussian();
            }
        } else if (spec.startsWith("onehot:")) {
            String idx = spec.substring("onehot:".length());
            long i;
            try {
                i = Long.parseLong(idx);
            } catch (NumberFormatException e) {
                throw new GradscopeException(option + " " + spec + ": expected onehot:I with I an element index");
            }
            if (i < 0 || i >= n) {
                throw new GradscopeException(option + " " + spec + ": element " + i + " is outside the leaf's " + n
                        + " elements (shape " + Shapes.str(shape) + ")");
            }
            d[(int) i] = 1;
        } else if (spec.endsWith(".npy")) {
            Tensor t;
            try {
                t = Npy.read(Path.of(spec));
            } catch (GradscopeException e) {
                throw new GradscopeException(option + " " + e.getMessage());
            }
            if (!t.dtype().isFloating()) {
                throw new GradscopeException(option + " " + spec + ": a direction needs floats (<f4 or <f8), not " + t.dtype());
            }
            if (!java.util.Arrays.equals(t.shape(), shape)) {
                throw new GradscopeException(option + " " + spec + ": shape " + Shapes.str(t.shape()) + " does not match the leaf's "
                        + Shapes.str(shape));
            }
            return t.to(dtype);
        } else {
            throw new GradscopeException(option + " must be ones, random, onehot:I or a .npy file, not '" + spec + "'");
        }
        return Tensor.fromDoubles(dtype, d, shape);
    }
}
