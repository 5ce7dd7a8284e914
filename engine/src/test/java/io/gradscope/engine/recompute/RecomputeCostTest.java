package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the remat planner (and the trade-off curve built on it) charges for running an op again is
 * the op's own figure: a convolution its multiply-adds per window, not one per output element.
 */
class RecomputeCostTest {

    @Test
    void theStepProfileCostsEachOpByItsOwnFigure() {
        String src = """
                x = input(2, 3, 10, 10)
                W = param(4, 3, 3, 3)
                b = param(4)
                h = conv2d(x, W, b, padding=1)
                a = relu(h)
                p = max_pool2d(a, 2)
                q = reshape(p, 2, 100)
                loss = mean(q * q)
                """;
        Program program = Program.parse("cost.grad", src);
        ProgramRun run = program.run(new RunOptions(DType.FLOAT64, 1, Map.of()), new MemoryOptions(RematPolicy.SQRT, false),
                (x, y, z) -> { });
        Map<String, Long> byOp = new HashMap<>();
        for (StepProfile.Op op : run.memory().profile().ops()) {
            byOp.put(op.op(), op.flops());
        }
        long outputs = 2L * 4 * 10 * 10;
        // 2·C_in·kH·kW per output for the products, one more for the bias.
        assertEquals(outputs * (2 * 3 * 3 * 3 + 1), byOp.get("conv2d"));
        assertEquals(outputs, byOp.get("relu"));
        assertEquals(2L * 4 * 5 * 5 * (2 * 2), byOp.get("max_pool2d"));
        assertEquals(0L, byOp.get("reshape"));
    }
}
