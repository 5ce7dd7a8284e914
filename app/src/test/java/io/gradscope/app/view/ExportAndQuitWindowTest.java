package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.viewmodel.OverlayViewModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;

/** Export draws what the screen shows and is named after the program; quitting an edited model offers a program. */
class ExportAndQuitWindowTest extends WindowFixture {
    private static final Path RESNET = Path.of("../engine/src/test/resources/onnx/resnet/model.onnx");

    private byte[] pixels(Path png) throws Exception {
        java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        return Arrays.toString(img.getRGB(0, 0, img.getWidth(), img.getHeight(), null, 0, img.getWidth())).getBytes();
    }

    @Test
    void theExportedPngCarriesTheColourOverlayOnScreen(FxRobot robot, @TempDir Path tmp) throws Exception {
        openText(robot, "mlp.grad", Examples.text("mlp"));
        robot.interact(() -> sweep().toEnd());
        Path plain = tmp.resolve("plain.png");
        Path coloured = tmp.resolve("coloured.png");
        assertTrue(readFx(() -> window.exporter().export(Exporter.Format.PNG, plain)));
        robot.interact(() -> vm().diagnostics().setOverlay(OverlayViewModel.Overlay.GRADIENT_NORM));
        waitUntil("the overlay on", () -> vm().diagnostics().overlay().get() == OverlayViewModel.Overlay.GRADIENT_NORM);
        assertTrue(readFx(() -> window.exporter().export(Exporter.Format.PNG, coloured)));
        assertFalse(Arrays.equals(pixels(plain), pixels(coloured)), "the gradient-norm colours are in the export");
    }

    @Test
    void theSuggestedExportNameIsTheProgramsAndAModelIsOfferedAsAProgram(FxRobot robot) throws Exception {
        assertEquals("resnet18.png", Exporter.Format.PNG.fileNameFor("resnet18.onnx"));
        assertEquals("mlp.svg", Exporter.Format.SVG.fileNameFor("mlp.grad"));
        assertEquals("mlp.trace.json", Exporter.Format.TRACE_JSON.fileNameFor("mlp.grad"));
        assertEquals("graph.png", Exporter.Format.PNG.fileNameFor(null));
        openAndWait(robot, RESNET);
        List<String> asked = new ArrayList<>();
        window.setAskUnsaved((name, doing) -> {
            asked.add(name);
            return MainWindow.Unsaved.CANCEL;
        });
        robot.interact(() -> window.editor().area().appendText("# an edit\n"));
        robot.interact(() -> window.quit());
        assertEquals(List.of("model.grad"), asked, "never offers to write over the .onnx");
        assertEquals(0, exits);
        assertTrue(Files.exists(RESNET));
    }
}
