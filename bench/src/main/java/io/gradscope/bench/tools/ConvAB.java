package io.gradscope.bench.tools;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import java.util.Random;

/**
 * resnet18's stride-1 3x3 convolutions (float32, batch 1), forward alone and forward plus backward
 * (the input and the weight gradient), under each of the ways -Dmodes names (values of
 * gradscope.conv, default im2col,auto) in turns in one JVM: the median ms of each (and the least).
 * Usage: ConvAB [ROUNDS] [REPS]
 */
public final class ConvAB {
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int[][] shapes = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
        String[] modes = System.getProperty("modes", "im2col,auto").split(",");
        Random r = new Random(1);
        for (int[] s : shapes) {
            int c = s[0], h = s[1];
            Tensor x = rand(r, 1, c, h, h).setRequiresGrad(true);
            Tensor w = rand(r, c, c, 3, 3).setRequiresGrad(true);
            Tensor g = rand(r, 1, c, h, h);
            for (boolean backward : new boolean[] {false, true}) {
                double[][] t = new double[modes.length][rounds];
                for (int round = 0; round < rounds + 2; round++) {
                    for (int way = 0; way < modes.length; way++) {
                        System.setProperty("gradscope.conv", modes[way]);
                        long t0 = System.nanoTime();
                        for (int i = 0; i < reps; i++) {
                            Tensor y = Ops.conv2d(x, w, null, new int[] {1}, new int[] {1}, new int[] {1}, 1);
                            if (backward) {
                                Backward.run(Ops.sum(Ops.mul(y, g)));
                            }
                        }
                        if (round >= 2) {
                            t[way][round - 2] = (System.nanoTime() - t0) / 1e6 / reps;
                        }
                    }
                }
                StringBuilder line = new StringBuilder(String.format("%4d ch %3dx%-3d %-8s", c, h, h, backward ? "fwd+bwd" : "fwd"));
                for (int way = 0; way < modes.length; way++) {
                    line.append(String.format("  %s %7.2f ms (min %6.2f)", modes[way], median(t[way]), min(t[way])));
                }
                System.out.println(line);
            }
        }
    }

    private static Tensor rand(Random r, int... shape) {
        int n = Arrays.stream(shape).reduce(1, (a, b) -> a * b);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextGaussian();
        }
        return Tensor.of(v, shape).to(DType.FLOAT32);
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
