package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A budget below every peak the planner can reach lands on the trade-off curve's lowest point: the
 * lowest peak, recomputing the least for it. Checked against an enumeration of budgets every 512
 * bytes from the plain peak down to that peak (each planned and priced as the curve prices its points), not
 * against the planner's own answer for a budget of one byte.
 */
class TradeOffBudgetTest {
    @Test
    void aBudgetTooSmallToMeetGetsTheLowestPeakAtTheLeastRecompute() throws IOException {
        Path file = Path.of("../assets/examples/residual_checkpoint.grad");
        Program program = Program.parse(file.toString(), Files.readString(file));
        RunOptions options = new RunOptions(DType.FLOAT64, 0, Map.of());
        TradeOff.Point tiny = TradeOff.point(program, options, RematPolicy.budget(8704)); // 8.5 KiB
        long plain = TradeOff.point(program, options, RematPolicy.NONE).peak();
        List<TradeOff.Point> enumerated = new ArrayList<>();
        for (long b = plain; b >= tiny.peak(); b -= 512) {
            enumerated.add(TradeOff.point(program, options, RematPolicy.budget(b)));
        }
        long lowest = enumerated.stream().mapToLong(TradeOff.Point::peak).min().orElseThrow();
        long leastAtLowest = enumerated.stream().filter(q -> q.peak() == lowest).mapToLong(TradeOff.Point::flops).min().orElseThrow();
        assertFalse(tiny.fits());
        assertTrue(lowest < plain, "some budget lowers the peak");
        assertEquals(lowest, tiny.peak(), "the lowest peak any budget reaches");
        assertEquals(leastAtLowest, tiny.flops(), "the least recompute for that peak");

        // The panel's curve ends on that point, and so does the slider's smallest budget.
        TradeOff curve = TradeOff.of(program, options, program.run(options).memory().profile(), RematPolicy.budget(8704),
                MemoryViewModel.BUDGETS, () -> false);
        TradeOff.Point last = curve.curve().get(curve.curve().size() - 1);
        assertEquals(List.of(tiny.peak(), tiny.flops()), List.of(last.peak(), last.flops()));
        assertEquals(List.of(tiny.peak(), tiny.flops()), List.of(curve.current().peak(), curve.current().flops()));
    }
}
