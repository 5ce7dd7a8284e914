package io.gradscope.engine.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import ai.onnx.proto.OnnxMl;
import org.junit.jupiter.api.Test;

/**
 * Constant folding of the operators swin_t computes its window padding and attention mask with (issue 44,
 * item 6), against the examples of the ONNX operator documentation (Mod, ScatterND): before, the import
 * refused Mod ×54 and ScatterND ×18. The whole chain is checked against PyTorch by the swin_t zoo model.
 */
class ConstantFolderTest {
    private static Attrs attrs(String op, String key, Object value) {
        OnnxMl.NodeProto.Builder n = OnnxMl.NodeProto.newBuilder().setOpType(op);
        if (value instanceof Long l) {
            n.addAttribute(OnnxMl.AttributeProto.newBuilder().setName(key).setI(l).setType(OnnxMl.AttributeProto.AttributeType.INT));
        } else if (value instanceof String s) {
            n.addAttribute(OnnxMl.AttributeProto.newBuilder().setName(key).setS(com.google.protobuf.ByteString.copyFromUtf8(s))
                    .setType(OnnxMl.AttributeProto.AttributeType.STRING));
        }
        return new Attrs(n.build());
    }

    private static Const vec(int type, double... v) {
        return Const.of(new int[] {v.length}, v, type);
    }

    private static double[] fold(String op, Attrs at, Const... in) {
        return ConstantFolder.fold(op, at, in, 16)[0].data();
    }

    /** mod_mixed_sign_int64: the remainder takes the divisor's sign (fmod=0). */
    @Test
    void modOfIntegersTakesTheDivisorsSign() {
        double[] r = fold("Mod", attrs("Mod", "fmod", 0L), vec(Const.INT64, -4, 7, 5, 4, -7, 8), vec(Const.INT64, 2, -3, 8, -2, 3, 5));
        assertArrayEquals(new double[] {0, -2, 5, 0, 2, 3}, r);
    }

    /** mod_mixed_sign_float32 with fmod=1: C's fmod, the dividend's sign. */
    @Test
    void fmodTakesTheDividendsSign() {
        double[] r = fold("Mod", attrs("Mod", "fmod", 1L), vec(Const.DOUBLE, -4.3, 7.2, 5.0, 4.3, -7.2, 8.0),
                vec(Const.DOUBLE, 2.1, -3.4, 8.0, -2.1, 3.4, 5.0));
        assertArrayEquals(new double[] {-0.1, 0.4, 5, 0.1, -0.4, 3}, r, 1e-12);
    }

    /** scatternd: whole rows replaced, in index order. */
    @Test
    void scatterNdReplacesTheIndexedSlices() {
        Const data = Const.of(new int[] {8}, new double[] {1, 2, 3, 4, 5, 6, 7, 8}, Const.FLOAT);
        Const idx = Const.of(new int[] {4, 1}, new double[] {4, 3, 1, 7}, Const.INT64);
        double[] r = fold("ScatterND", attrs("ScatterND", "x", null), data, idx, vec(Const.FLOAT, 9, 10, 11, 12));
        assertArrayEquals(new double[] {1, 11, 3, 10, 9, 6, 7, 12}, r);
    }

    /** scatternd_add: the 4x4x4 example, slices of the first axis, the repeated index 0 added twice. */
    @Test
    void scatterNdAddsIntoRepeatedSlices() {
        double[] plane = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1};
        double[] plane2 = {8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
        double[] data = new double[64];
        for (int k = 0; k < 4; k++) {
            System.arraycopy(k < 2 ? plane : plane2, 0, data, 16 * k, 16);
        }
        double[] up = new double[32];
        double[] fives = {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8};
        double[] ones = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
        System.arraycopy(fives, 0, up, 0, 16);
        System.arraycopy(ones, 0, up, 16, 16);
        double[] r = fold("ScatterND", attrs("ScatterND", "reduction", "add"), Const.of(new int[] {4, 4, 4}, data, Const.FLOAT),
                Const.of(new int[] {2, 1}, new double[] {0, 0}, Const.INT64), Const.of(new int[] {2, 4, 4}, up, Const.FLOAT));
        double[] expect = data.clone();
        double[] first = {7, 8, 9, 10, 13, 14, 15, 16, 18, 17, 16, 15, 16, 15, 14, 13};
        System.arraycopy(first, 0, expect, 0, 16);
        assertArrayEquals(expect, r);
    }
}
