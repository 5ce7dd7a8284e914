package io.gradscope.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static io.gradscope.app.LayerRules.assertBroken;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The engine's layers, as they hold today (docs/ARCHITECTURE.md draws them), checked on its compiled
 * main classes. Rows from the bottom; a package may use the rows below it, not its own row:
 *
 * <pre>
 *   step
 *   diagnose   jacobian   onnx
 *   run
 *   lang
 *   check   forward   scalar
 *   autograd
 *   device (cpu, cuda)   ops
 *   alloc   recompute
 *   trace
 *   tensor   sparse
 *   (root)
 * </pre>
 *
 * No package uses {@code device}: {@code tensor.Backends} loads each backend by name and ops reach
 * kernels through the {@code tensor.Backend} interface. The engine never uses JavaFX or the app.
 * Each rule is also run on small fixtures that break it ({@code io.gradscope.app.archfixture.engine}),
 * to show that it fails when broken.
 */
class EngineLayersTest {
    private static final String ENGINE = "io.gradscope.engine";
    private static final String FIXTURE = "io.gradscope.app.archfixture.engine";

    static LayeredArchitecture layers(String root) {
        String[][][] rows = {
            {{"root", root}},
            {{"tensor", root + ".tensor"}, {"sparse", root + ".sparse"}},
            {{"trace", root + ".trace"}},
            {{"alloc", root + ".alloc"}, {"recompute", root + ".recompute"}},
            {{"device", root + ".device.."}, {"ops", root + ".ops"}},
            {{"autograd", root + ".autograd"}},
            {{"check", root + ".check"}, {"forward", root + ".forward"}, {"scalar", root + ".scalar"}},
            {{"lang", root + ".lang"}},
            {{"run", root + ".run"}},
            {{"diagnose", root + ".diagnose"}, {"jacobian", root + ".jacobian"}, {"onnx", root + ".onnx"}},
            {{"step", root + ".step"}},
        };
        return LayerRules.rows(rows, Set.of("device"), Set.of());
    }

    static ArchRule noUi(String root, String app) {
        return noClasses().that().resideInAPackage(root + "..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", app + "..")
                .as("the engine uses neither JavaFX nor the app");
    }

    @Test
    void engineKeepsItsLayers() throws Exception {
        layers(ENGINE).check(engine());
    }

    @Test
    void engineUsesNoJavaFxNorTheApp() throws Exception {
        noUi(ENGINE, "io.gradscope.app").check(engine());
    }

    @Test
    void aPackageUsingARowAboveBreaksTheLayers() {
        assertBroken(fixtureLayers(), ModuleClasses.fixture("engine"), "tensor.UsesOps", "ops.SomeOp");
    }

    @Test
    void aPackageUsingItsOwnRowBreaksTheLayers() {
        assertBroken(fixtureLayers(), ModuleClasses.fixture("engine"), "check.UsesForward", "forward.SomeTangent");
    }

    @Test
    void usingABackendClassBreaksTheLayers() {
        assertBroken(fixtureLayers(), ModuleClasses.fixture("engine"), "autograd.UsesKernel", "device.cpu.SomeKernel");
    }

    @Test
    void aPackageInNoLayerBreaksTheLayers() {
        assertBroken(fixtureLayers(), ModuleClasses.fixture("engine"), "stray.Unplaced", "is not contained in architecture");
    }

    @Test
    void usesOfRowsBelowAreAllowed() {
        // run.UsesBelow uses ops, forward and tensor fixtures: allowed, so no line names it
        List<String> lines = LayerRules.violations(fixtureLayers(), ModuleClasses.fixture("engine"));
        assertEquals(List.of(), lines.stream().filter(l -> l.contains("UsesBelow")).toList());
        assertEquals(List.of(), lines.stream().filter(l -> !(l.contains("UsesOps") || l.contains("UsesForward")
                || l.contains("UsesKernel") || l.contains("Unplaced"))).toList());
    }

    @Test
    void usingJavaFxOrTheAppBreaksNoUi() {
        ArchRule rule = noUi(FIXTURE, "io.gradscope.app.archfixture.app");
        assertBroken(rule, ModuleClasses.fixture("engine"), "trace.UsesUi", "javafx.scene.Node");
        assertBroken(rule, ModuleClasses.fixture("engine"), "trace.UsesUi", "archfixture.app.view.OldPanel");
    }

    /** The fixture has one or two classes per package, not every layer: empty layers are allowed there. */
    private static LayeredArchitecture fixtureLayers() {
        return layers(FIXTURE).withOptionalLayers(true);
    }

    private static JavaClasses engine() throws Exception {
        return ModuleClasses.of(Tensor.class);
    }
}
