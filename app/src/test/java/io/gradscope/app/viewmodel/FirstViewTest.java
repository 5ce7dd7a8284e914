package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Before the first step the Node tab says what the program computed and how to start (it was empty). */
class FirstViewTest {

    @Test
    void beforeStepOneItNamesTheObjectiveItsValueTheParametersAndHowToStart() throws Exception {
        Path file = Path.of("../assets/examples/mlp.grad");
        String text = Files.readString(file);
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("mlp.grad", text);
        SweepViewModel vm = session.sweep();
        assertEquals(-1, vm.cursor().get(), "opened before step 1");
        String[] first = FirstView.of(vm.recorded().get(), vm.mode().get());
        int steps = vm.recorded().get().steps(Sweep.Mode.BACKWARD);
        assertEquals("Before step 1 of " + steps, first[0]);
        // The objective as the engine computes it on its own, at the app's dtype and seed.
        double loss = Program.parse("mlp.grad", text).run(new RunOptions(DType.FLOAT64, 0, Map.of())).objective().item();
        assertTrue(first[1].startsWith("The program computed loss = " + String.format(Locale.ROOT, "%.4g", loss) + " (its objective"),
                first[1]);
        // The parameters and their values, counted from the program's text.
        int params = 0;
        long values = 0;
        Matcher m = Pattern.compile("= param\\(([0-9, ]+)").matcher(text);
        while (m.find()) {
            params++;
            long n = 1;
            for (String d : m.group(1).split(",")) {
                if (!d.isBlank()) {
                    n *= Long.parseLong(d.trim());
                }
            }
            values += n;
        }
        assertTrue(first[1].contains(params + " parameters (" + String.format(Locale.ROOT, "%,d", values) + " values)"), first[1]);
        assertTrue(first[2].contains("Step ▶") && first[2].contains(steps + " steps"), first[2]);
    }
}
