package io.gradscope.engine.ops;

import io.gradscope.engine.autograd.Node;
import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link Ops} functions added for silu, hardtanh, the 1-d pools, unfold and fold, each called
 * as a Java caller would, on every op-table row of its op: PyTorch's value and VJP (the rows'
 * references, float64).
 */
class FacadeTest {
    /** Each function, called with a row's attributes (the spec's defaults where the row gives none). */
    private static final Map<String, BiFunction<OpAttrs, Tensor, Tensor>> CALLS = Map.of(
            "silu", (a, x) -> Ops.silu(x),
            "hardtanh", (a, x) -> Ops.hardtanh(x, a.number("min_val"), a.number("max_val")),
            "max_pool1d", (a, x) -> Ops.maxPool1d(x, a.ints("kernel_size")[0], stride(a), a.ints("padding")[0],
                    a.ints("dilation")[0], a.bool("ceil_mode")),
            "avg_pool1d", (a, x) -> Ops.avgPool1d(x, a.ints("kernel_size")[0], stride(a), a.ints("padding")[0],
                    a.bool("ceil_mode"), a.bool("count_include_pad")),
            "unfold", (a, x) -> Ops.unfold(x, a.ints("kernel_size"), a.ints("dilation"), a.ints("padding"), a.ints("stride")),
            "fold", (a, x) -> {
                int[] size = a.ints("output_size");
                return Ops.fold(x, size[0], size[size.length - 1], a.ints("kernel_size"), a.ints("dilation"), a.ints("padding"),
                        a.ints("stride"));
            });

    /** PyTorch's default stride of a pool: the kernel size. */
    private static int stride(OpAttrs a) {
        int[] s = a.intsOrNull("stride");
        return s == null ? a.ints("kernel_size")[0] : s[0];
    }

    static Stream<OpRow> rows() {
        return OpRow.load().stream().filter(r -> CALLS.containsKey(r.op()));
    }

    @Test
    void everyFunctionHasRows() {
        assertEquals(CALLS.keySet(), rows().map(OpRow::op).collect(java.util.stream.Collectors.toSet()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void givesPyTorchsValueAndVjp(OpRow row) {
        Tensor x = row.inputs().get(0).tensor(DType.FLOAT64);
        x.setRequiresGrad(true);
        Tensor y = CALLS.get(row.op()).apply(new OpAttrs(OpRegistry.spec(row.op()), row.attrs()), x);
        assertEquals(row.op(), Node.of(y).op().name(), row + ": the op recorded");
        assertArrayEquals(row.output().shape(), y.shape(), row + ": shape");
        assertClose(row.output().data(), y.toDoubleArray(), 1e-12, 1e-14, row + ": value");
        Backward.run(Ops.sum(Ops.mul(y, row.upstream().tensor(DType.FLOAT64))));
        assertTrue(x.grad() != null, row + ": no gradient");
        assertClose(row.grads().get(0).data(), x.grad().toDoubleArray(), 1e-12, 1e-14, row + ": VJP");
    }
}
