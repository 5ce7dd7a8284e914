package io.gradscope.engine.tensor;

/** Strides for viewing a strided tensor under a new shape without copying, when that is possible. */
final class ReshapeStrides {
    private ReshapeStrides() {
    }

    /**
     * Returns the strides of the view, or null when the old strides do not allow one. Follows
     * PyTorch's computeStride: each run of old dimensions that is contiguous within itself can be
     * split or merged freely.
     */
    static int[] compute(int[] oldShape, int[] oldStrides, int[] newShape) {
        int[] newStrides = new int[newShape.length];
        if (Shapes.numel(oldShape) == 0) {
            return Shapes.contiguousStrides(newShape);
        }
        int viewD = newShape.length - 1;
        long chunkBase = oldStrides.length == 0 ? 1 : oldStrides[oldStrides.length - 1];
        long tensorNumel = 1;
        long viewNumel = 1;
        for (int d = oldShape.length - 1; d >= 0; d--) {
            tensorNumel *= oldShape[d];
            if (d == 0 || (oldShape[d - 1] != 1 && oldStrides[d - 1] != tensorNumel * chunkBase)) {
                while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
                    newStrides[viewD] = (int) (viewNumel * chunkBase);
                    viewNumel *= newShape[viewD];
                    viewD--;
                }
                if (viewNumel != tensorNumel) {
                    return null;
                }
                if (d > 0) {
                    chunkBase = oldStrides[d - 1];
                    tensorNumel = 1;
                    viewNumel = 1;
                }
            }
        }
        if (viewD != -1) {
            return null;
        }
        return newStrides;
    }
}
