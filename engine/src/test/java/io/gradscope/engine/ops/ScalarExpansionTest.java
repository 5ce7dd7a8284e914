package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.scalar.ScalarExpansion;
import io.gradscope.engine.scalar.Value;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scalar Value engine against PyTorch: every op-table row of an op that expands into scalars,
 * expanded, with Σ out ⊙ u differentiated by Value.backward(), gives PyTorch's value and VJP.
 */
class ScalarExpansionTest {
    private static final Set<String> EXPANDS = Set.of("add", "sub", "mul", "div", "matmul", "sum", "mean", "neg", "exp", "log",
            "tanh", "relu", "sqrt", "sigmoid");

    static Stream<OpRow> rows() {
        // The scalar engine is micrograd's, for finite values: the NaN and ±inf rows are the tensor ops' business.
        return OpRow.load().stream().filter(r -> EXPANDS.contains(r.op()) && r.finite() && r.create().label().equals(r.op())
                && (!r.op().equals("matmul") || r.inputs().stream().allMatch(a -> a.shape().length <= 2)));
    }

    @Test
    void theRowsCoverEveryExpandableOp() {
        Set<String> seen = new java.util.TreeSet<>();
        rows().forEach(r -> seen.add(r.op()));
        assertTrue(seen.containsAll(EXPANDS), "rows for " + seen);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void scalarGraphGivesPyTorchsValueAndVjp(OpRow row) {
        Tensor[] in = row.inputs().stream().map(a -> a.tensor(DType.FLOAT64)).toArray(Tensor[]::new);
        ScalarExpansion e = ScalarExpansion.of(row.create(), in);
        double[] out = e.outputs().stream().mapToDouble(Value::data).toArray();
        assertClose(row.output().data(), out, 1e-12, 1e-14, row + ": value");
        Value loss = e.dot(row.upstream().data());
        loss.backward();
        for (int i = 0; i < in.length; i++) {
            double[] g = e.inputs().get(i).stream().mapToDouble(Value::grad).toArray();
            assertClose(row.grads().get(i).data(), g, 1e-12, 1e-14, row + ": gradient of input " + i);
        }
    }

    @Test
    void opsWithAttributesOrBatchesSayWhatIsCovered() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2);
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(GradscopeException.class,
                () -> ScalarExpansion.of(OpRegistry.create("softmax", java.util.Map.of()), x));
        assertTrue(e.getMessage().contains("matmul"), e.getMessage());
    }
}
