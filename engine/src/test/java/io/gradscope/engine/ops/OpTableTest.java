package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertBitsEqual;
import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The generic op-table tests: every row of optable.json (PyTorch float64 results) through every
 * check. Adding an op means one table entry and rows in gen_op_table.py; the completeness test
 * fails until both exist.
 */
class OpTableTest {
    private static final List<OpRow> ROWS = OpRow.load();

    static Stream<OpRow> rows() {
        return ROWS.stream();
    }

    /** Runs a row: inputs (float ones needing a gradient), the output, and the VJP for the row's upstream. */
    private record Run(Tensor output, Tensor[] grads) {
    }

    private static Run run(OpRow row, Tensor[] inputs, DType dt) {
        for (Tensor t : inputs) {
            if (t.dtype().isFloating()) {
                t.setRequiresGrad(true);
            }
        }
        Tensor y = Ops.apply(row.create(), inputs);
        Tensor[] grads = new Tensor[inputs.length];
        if (y.requiresGrad()) {
            Tensor u = row.upstream().tensor(dt);
            Backward.run(Ops.sum(Ops.mul(y, u)));
            for (int i = 0; i < inputs.length; i++) {
                grads[i] = inputs[i].grad();
            }
        }
        return new Run(y, grads);
    }

    private static Tensor[] inputs(OpRow row, DType dt, boolean gapped) {
        return row.inputs().stream().map(a -> gapped ? a.gapped(dt) : a.tensor(dt)).toArray(Tensor[]::new);
    }

    @Test
    void everyOpHasRowsAndEveryRowNamesAnOp() {
        Set<String> tested = new TreeSet<>();
        for (OpRow r : ROWS) {
            assertTrue(OpRegistry.has(r.op()), "row " + r + " names no op of the table");
            tested.add(r.op());
        }
        Set<String> missing = new TreeSet<>(OpRegistry.names());
        missing.removeAll(tested);
        assertTrue(missing.isEmpty(), "ops without test rows: " + missing);
    }

    @Test
    void samplesPerRowAtLeastOpInfoDefaults() {
        Map<String, Integer> count = new TreeMap<>();
        ROWS.forEach(r -> count.merge(r.op(), 1, Integer::sum));
        for (OpSpec spec : OpSpecs.all()) {
            if (spec.elementwise()) {
                assertTrue(count.getOrDefault(spec.name(), 0) >= 3, spec.name() + ": " + count.get(spec.name()) + " samples");
            }
        }
        for (String op : List.of("add", "sub", "mul", "div", "matmul")) {
            assertTrue(count.get(op) >= 9, op + ": " + count.get(op) + " samples");
        }
        for (String op : List.of("sum", "mean", "amax")) {
            assertTrue(count.get(op) >= 20, op + ": " + count.get(op) + " samples");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void forwardAndVjpMatchPyTorchInFloat64(OpRow row) {
        Run r = run(row, inputs(row, DType.FLOAT64, false), DType.FLOAT64);
        assertArrayEquals(row.output().shape(), r.output().shape(), row + ": output shape");
        assertClose(row.output().data(), r.output().toDoubleArray(), 1e-9, 1e-12, row + ": forward");
        for (int i = 0; i < row.grads().size(); i++) {
            OpRow.Arr expected = row.grads().get(i);
            if (expected != null) {
                assertNotNull(r.grads()[i], row + ": no gradient for input " + i);
                assertClose(expected.data(), r.grads()[i].toDoubleArray(), 1e-9, 1e-12, row + ": VJP for input " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void vjpMatchesCentralDifferences(OpRow row) {
        if (!row.finite()) {
            return;
        }
        GradCheck.Result res = GradCheck.checkOp(row.create(), inputs(row, DType.FLOAT64, false));
        assertTrue(res.ok(), row + ": " + res);
    }

    // Float32 holds 1000 + x to about 6e-5, so a LayerNorm of such inputs is good to about 1e-4.
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void forwardInFloat32IsCloseToPyTorch(OpRow row) {
        Run r = run(row, inputs(row, DType.FLOAT32, false), DType.FLOAT32);
        assertClose(row.output().data(), r.output().toDoubleArray(), 1e-4, 2e-4, row + ": float32 forward");
        for (int i = 0; i < row.grads().size(); i++) {
            if (row.grads().get(i) != null) {
                assertClose(row.grads().get(i).data(), r.grads()[i].toDoubleArray(), 1e-4, 1e-4, row + ": float32 VJP " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void nonContiguousInputsWithNaNGapsGiveEqualResults(OpRow row) {
        // The engine's own GEMM packs its operands, so their layout cannot change a bit; OpenBLAS reads them
        // where they lie, and its AVX-512 kernels (SkylakeX, Cooperlake) round a transposed operand's
        // products in another order (conv_transpose2d's weight gradient, row 625). So this runs on the
        // engine's GEMM, whatever the machine would pick (the system BLAS loaded first: a library that reads
        // gradscope.blas=java when it loads never loads it, for every test after this one).
        io.gradscope.engine.device.cpu.CpuBackend.floatGemm();
        System.setProperty("gradscope.blas", "java");
        io.gradscope.engine.device.cpu.KernelTuner.resetToRules();
        try {
            gappedInputsGiveEqualBits(row);
        } finally {
            System.clearProperty("gradscope.blas");
            io.gradscope.engine.device.cpu.KernelTuner.resetToRules();
        }
    }

    private void gappedInputsGiveEqualBits(OpRow row) {
        for (DType dt : new DType[] {DType.FLOAT64, DType.FLOAT32}) {
            Run plain = run(row, inputs(row, dt, false), dt);
            Tensor[] gapped = inputs(row, dt, true);
            for (Tensor t : gapped) {
                assertTrue(t.numel() <= 1 || !t.isContiguous(), row + ": the gapped input should not be contiguous");
            }
            Run strided = run(row, gapped, dt);
            assertBitsEqual(plain.output().toDoubleArray(), strided.output().toDoubleArray(), row + " " + dt + ": forward");
            for (int i = 0; i < plain.grads().length; i++) {
                if (plain.grads()[i] != null) {
                    assertBitsEqual(plain.grads()[i].toDoubleArray(), strided.grads()[i].toDoubleArray(),
                            row + " " + dt + ": VJP " + i);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void backwardTwiceGivesIdenticalBits(OpRow row) {
        Tensor[] in = inputs(row, DType.FLOAT64, false);
        for (Tensor t : in) {
            if (t.dtype().isFloating()) {
                t.setRequiresGrad(true);
            }
        }
        Tensor y = Ops.apply(row.create(), in);
        if (!y.requiresGrad()) {
            return;
        }
        Tensor loss = Ops.sum(Ops.mul(y, row.upstream().tensor(DType.FLOAT64)));
        List<double[]> first = new ArrayList<>();
        Backward.run(loss);
        for (Tensor t : in) {
            first.add(t.grad() == null ? null : t.grad().toDoubleArray());
        }
        Backward.run(loss);
        for (int i = 0; i < in.length; i++) {
            if (first.get(i) != null) {
                assertBitsEqual(first.get(i), in[i].grad().toDoubleArray(), row + ": second backward, input " + i);
            }
        }
    }
}
