package io.gradscope.bench.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.RecentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** bench-ui --open's timing of the open path, on a small generated program: every part there, adding up to the total. */
@ExtendWith(ApplicationExtension.class)
class OpenTimerTest {
    private MainWindow window;

    @Start
    void start(Stage stage) {
        window = new MainWindow(new RecentFiles(() -> "", s -> { }));
        Scene scene = new Scene(window, 1200, 800);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }

    @Test
    void thePartsOfAnOpenAreAllMeasuredAndAddUpToTheTotal(FxRobot robot, @TempDir Path dir) throws Exception {
        for (BenchUiPrograms.Shape shape : BenchUiPrograms.Shape.values()) {
            Path file = dir.resolve(shape + ".grad");
            Files.writeString(file, BenchUiPrograms.program(shape, 300));
            AtomicReference<Map<String, Double>> parts = new AtomicReference<>();
            AtomicReference<String> failed = new AtomicReference<>();
            robot.interact(() -> OpenTimer.time(window, file, parts::set, failed::set));
            WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> parts.get() != null || failed.get() != null);
            assertNull(failed.get());
            Map<String, Double> p = parts.get();
            assertEquals(OpenTimer.PARTS.size() + 1, p.size(), "parts: " + p.keySet());
            double sum = 0;
            for (String part : OpenTimer.PARTS) {
                assertNotNull(p.get(part), part + " missing");
                assertTrue(p.get(part) >= 0, part + " = " + p.get(part));
                sum += p.get(part);
            }
            assertTrue(p.get("run") > 0 && p.get("layout") > 0 && p.get("first_draw") > 0, shape + ": " + p);
            double total = p.get("total");
            // Rounded to 0.1 ms each, and a few instants between parts unaccounted for.
            assertTrue(Math.abs(total - sum) <= 2 + 0.02 * total, shape + ": parts " + sum + " vs total " + total + " " + p);
            assertEquals(file.getFileName().toString(), window.viewModel().fileName().get());
        }
    }

    @Test
    void aFileThatDoesNotOpenIsSaidSo(FxRobot robot, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.grad");
        Files.writeString(file, "x = input(2)\nloss = sum(x @@ x)\n");
        AtomicReference<Map<String, Double>> parts = new AtomicReference<>();
        AtomicReference<String> failed = new AtomicReference<>();
        robot.interact(() -> OpenTimer.time(window, file, parts::set, failed::set));
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> parts.get() != null || failed.get() != null);
        assertNull(parts.get());
        assertTrue(failed.get().contains("bad.grad:2:"), failed.get());
    }
}
