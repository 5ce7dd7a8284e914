package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every op a program can call, called from a program by its spec's signature: each op-table row of
 * a callable op becomes a {@code .grad} program (attributes by keyword where the signature allows),
 * and its value and gradients equal PyTorch's. An op missing from the language fails here.
 */
class ProgramCallTest {
    static Stream<OpRow> rows() {
        return OpRow.load().stream().filter(r -> OpRegistry.spec(r.op()).callable());
    }

    @Test
    void everyCallableOpHasARowCalledFromAProgram() {
        Set<String> called = rows().map(OpRow::op).collect(Collectors.toCollection(TreeSet::new));
        Set<String> callable = OpSpecs.all().stream().filter(OpSpec::callable).map(OpSpec::name)
                .collect(Collectors.toCollection(TreeSet::new));
        callable.removeAll(called);
        assertTrue(callable.isEmpty(), "callable ops without a program row: " + callable);
    }

    private static String dims(int[] shape) {
        return java.util.Arrays.stream(shape).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }

    /** The call of the row's op as a program writes it. */
    static String call(OpSpec spec, OpRow row, List<String> names) {
        return call(spec, row, names, false);
    }

    /** The call, with {@code tensorKeywords} its tensors by keyword too ({@code cross_entropy(logits=x0, labels=x1)}). */
    static String call(OpSpec spec, OpRow row, List<String> names, boolean tensorKeywords) {
        List<String> args = new ArrayList<>();
        int tensor = 0;
        for (Param p : spec.params()) {
            Object v = row.attrs().get(p.name());
            switch (p.kind()) {
                case TENSOR -> {
                    if (marked(spec, row)) {
                        // a row naming its optional tensors (bce's weight and pos_weight): those, by keyword
                        if (!p.optional() || row.attrs().containsKey(p.name())) {
                            args.add((tensorKeywords || p.optional() ? p.name() + "=" : "") + names.get(tensor++));
                        }
                    } else if (tensor < names.size()) {
                        // an optional tensor (a bias) the row leaves out is not written
                        args.add((tensorKeywords ? p.name() + "=" : "") + names.get(tensor++));
                    }
                }
                case TENSORS -> {
                    while (tensor < names.size()) {
                        args.add(names.get(tensor++));
                    }
                }
                case DIMS -> args.add(dims((int[]) v));
                default -> {
                    if (!row.attrs().containsKey(p.name())) {
                        continue;
                    }
                    String text = Param.valueText(v);
                    args.add(spec.allOrNone().isEmpty() ? p.name() + "=" + text : text);
                }
            }
        }
        return spec.name() + "(" + String.join(", ", args) + ")";
    }

    /** Whether the row names the optional tensors it gives (as a call's attributes do: OpAttrs.given). */
    private static boolean marked(OpSpec spec, OpRow row) {
        return spec.params().stream().anyMatch(p -> p.isTensor() && p.optional() && row.attrs().containsKey(p.name()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void theRowRunsAsAProgramAndMatchesPyTorch(OpRow row) {
        runs(row, false);
    }

    /** Rows of ops whose every argument can be written by keyword (no dimension list, varargs or all-or-none attributes). */
    static Stream<OpRow> keywordRows() {
        return rows().filter(r -> {
            OpSpec spec = OpRegistry.spec(r.op());
            return spec.allOrNone().isEmpty() && spec.params().stream().allMatch(OpSpec::keyword);
        });
    }

    /** Issue 44: cross_entropy(x, t, weight=w) and attention(q, k, v, attn_mask=m) said "unexpected keyword argument". */
    @ParameterizedTest(name = "{0}")
    @MethodSource("keywordRows")
    void theRowRunsWithEveryTensorByKeyword(OpRow row) {
        runs(row, true);
    }

    private static void runs(OpRow row, boolean tensorKeywords) {
        OpSpec spec = OpRegistry.spec(row.op());
        StringBuilder src = new StringBuilder();
        List<String> names = new ArrayList<>();
        Map<String, Tensor> inputs = new HashMap<>();
        for (int i = 0; i < row.inputs().size(); i++) {
            OpRow.Arr a = row.inputs().get(i);
            String name = "x" + i;
            names.add(name);
            String d = dims(a.shape());
            if (a.dtype() == DType.INT64) {
                int[] first = row.inputs().get(0).shape();
                // the scores' classes: the last dimension, or dimension 1 of K-dimensional scores [N, C, d1, ...]
                int classes = first.length == 0 ? 1 : first[first.length >= 3 ? 1 : first.length - 1];
                for (double v : a.data()) {
                    classes = Math.max(classes, (int) v + 1); // indices and masks: any class count that holds them
                }
                src.append(name).append(" = labels(").append(d).append(d.isEmpty() ? "" : ", ").append("classes=")
                        .append(classes).append(")\n");
            } else {
                src.append(name).append(" = input(").append(d).append(d.isEmpty() ? "" : ", ").append("grad=True)\n");
            }
            inputs.put(name, a.tensor(DType.FLOAT64));
        }
        src.append("u = input(").append(dims(row.upstream().shape())).append(")\n");
        inputs.put("u", row.upstream().tensor(DType.FLOAT64));
        src.append("y = ").append(call(spec, row, names, tensorKeywords)).append("\n");
        src.append("objective = sum(y * u)\n");
        ProgramRun run = Program.parse("row.grad", src.toString()).run(new RunOptions(DType.FLOAT64, 0, inputs));
        Tensor y = run.values().get("y");
        assertArrayEquals(row.output().shape(), y.shape(), row + ": output shape\n" + src);
        assertClose(row.output().data(), y.toDoubleArray(), 1e-9, 1e-12, row + ": value\n" + src);
        for (int i = 0; i < row.grads().size(); i++) {
            if (row.grads().get(i) != null && row.grads().get(i).data().length > 0) {
                assertClose(row.grads().get(i).data(), run.gradient(names.get(i)).toDoubleArray(), 1e-9, 1e-12,
                        row + ": gradient of input " + i + "\n" + src);
            }
        }
    }
}
