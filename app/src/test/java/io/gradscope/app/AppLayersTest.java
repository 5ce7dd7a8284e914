package io.gradscope.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static io.gradscope.app.LayerRules.assertBroken;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.freeze.FreezingArchRule;
import com.tngtech.archunit.library.freeze.ViolationStore;
import io.gradscope.app.archfixture.app.view.OldPanel;
import io.gradscope.app.archfixture.engine.ops.SomeOp;
import io.gradscope.engine.run.Program;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The app's layers, as they hold today (docs/ARCHITECTURE.md draws them), checked on its compiled
 * main classes. Rows from the bottom; a package may use the rows below it:
 *
 * <pre>
 *   (root: Launcher)
 *   cli
 *   launch
 *   view
 *   export
 *   draw
 *   viewmodel
 *   service
 *   layout
 *   engine
 * </pre>
 *
 * Besides: viewmodel, service and layout use no view, draw or export class and nothing of
 * {@code javafx.scene}; layout uses no JavaFX at all.
 *
 * <p>Views should read only view-models. Today views and the drawing use engine and service types
 * directly (ComparePanel, Inspector, MemoryPanel, GraphScene...), so that rule is frozen
 * ({@link #viewsReadViewModels}): each "view class uses engine or service class" pair of today is
 * listed in {@code src/test/resources/archunit-store} (the store ArchUnit's FreezingArchRule keeps;
 * {@code archunit.properties} names it), a new pair fails, and a pair that goes away leaves the store
 * when the test runs (commit the shrunk store). The pairs name classes, not members or lines, so an
 * edit inside a view does not count as new; a renamed engine class does: run the test once with
 * {@code -Darchunit.freeze.refreeze=true} after such a rename, and check the store's diff. Layout is
 * allowed: it is the graph's geometry, data below view-models.
 *
 * <p>Each rule is also run on small fixtures that break it ({@code io.gradscope.app.archfixture.app}),
 * to show that it fails when broken.
 */
class AppLayersTest {
    private static final String APP = "io.gradscope.app";
    private static final String ENGINE = "io.gradscope.engine";
    private static final String FIXTURE = "io.gradscope.app.archfixture.app";
    private static final String FIXTURE_ENGINE = "io.gradscope.app.archfixture.engine";

    static LayeredArchitecture layers(String app, String engine) {
        String[][][] rows = {
            {{"engine", engine + ".."}},
            {{"layout", app + ".layout"}},
            {{"service", app + ".service"}},
            {{"viewmodel", app + ".viewmodel"}},
            {{"draw", app + ".draw"}},
            {{"export", app + ".export"}},
            {{"view", app + ".view"}},
            {{"launch", app + ".launch"}},
            {{"cli", app + ".cli"}},
            {{"root", app}},
        };
        return LayerRules.rows(rows, Set.of(), Set.of("engine"));
    }

    static ArchRule noWindowBelowViews(String app) {
        return noClasses().that().resideInAnyPackage(app + ".viewmodel", app + ".service", app + ".layout")
                .should().dependOnClassesThat().resideInAnyPackage(app + ".view", app + ".draw", app + ".export", "javafx.scene..")
                .as("viewmodel, service and layout use no view, draw, export or javafx.scene class");
    }

    static ArchRule layoutWithoutJavaFx(String app) {
        return noClasses().that().resideInAPackage(app + ".layout").should().dependOnClassesThat().resideInAPackage("javafx..")
                .as("layout uses no JavaFX");
    }

    /** Views and the drawing use no engine or service class (frozen: see the class comment). */
    static ArchRule viewsReadViewModels(String app, String engine) {
        return classes().that().resideInAnyPackage(app + ".view", app + ".draw")
                .should(new UsesNone(engine, app + ".service"))
                .as("views and the drawing read view-models, not the engine or the services");
    }

    @Test
    void appKeepsItsLayers() throws Exception {
        layers(APP, ENGINE).check(app());
    }

    @Test
    void noWindowBelowViews() throws Exception {
        noWindowBelowViews(APP).check(app());
    }

    @Test
    void layoutUsesNoJavaFx() throws Exception {
        layoutWithoutJavaFx(APP).check(app());
    }

    @Test
    void viewsReadViewModelsBeyondTodaysList() throws Exception {
        FreezingArchRule.freeze(viewsReadViewModels(APP, ENGINE)).check(app());
    }

    /** A run carries the program it ran (ProgramRun#program): view-models never parse its text again. */
    static ArchRule noParseInViewModels(String app) {
        return noClasses().that().resideInAPackage(app + ".viewmodel..")
                .should().callMethod(Program.class, "parse", String.class, String.class)
                .as("view-models use the program a run carries and never parse its text again");
    }

    @Test
    void viewModelsDoNotParseProgramsAgain() throws Exception {
        noParseInViewModels(APP).check(app());
    }

    @Test
    void aViewModelParsingAProgramBreaksItsRule() {
        assertBroken(noParseInViewModels(FIXTURE), ModuleClasses.fixture("app"), "viewmodel.ParsesAgain", "Program.parse");
    }

    @Test
    void aServiceUsingAViewBreaksTheLayers() {
        assertBroken(layers(FIXTURE, FIXTURE_ENGINE).withOptionalLayers(true), ModuleClasses.fixture("app"),
                "service.UsesView", "view.OldPanel");
        assertBroken(noWindowBelowViews(FIXTURE), ModuleClasses.fixture("app"), "service.UsesView", "view.OldPanel");
    }

    @Test
    void aViewModelUsingJavaFxSceneBreaksItsRule() {
        assertBroken(noWindowBelowViews(FIXTURE), ModuleClasses.fixture("app"), "viewmodel.UsesScene", "javafx.scene.Node");
    }

    @Test
    void layoutUsingJavaFxBreaksItsRule() {
        assertBroken(layoutWithoutJavaFx(FIXTURE), ModuleClasses.fixture("app"), "layout.UsesBeans", "javafx.beans.property.DoubleProperty");
    }

    @Test
    void viewUsesAreListedAsClassPairs() {
        List<String> lines = LayerRules.violations(viewsReadViewModels(FIXTURE, FIXTURE_ENGINE), ModuleClasses.fixture("app"));
        assertEquals(List.of(FIXTURE + ".view.NewPanel uses " + FIXTURE + ".service.UsesView",
                FIXTURE + ".view.OldPanel uses " + FIXTURE_ENGINE + ".ops.SomeOp"), lines);
    }

    @Test
    void frozenViewRuleRefusesOnlyNewUses() {
        // today's list holds OldPanel's use of the engine; NewPanel's use of a service is new
        ViolationStore store = new MemoryStore();
        ArchRule rule = FreezingArchRule.freeze(viewsReadViewModels(FIXTURE, FIXTURE_ENGINE)).persistIn(store);
        assertFalse(rule.evaluate(new ClassFileImporter().importClasses(OldPanel.class, SomeOp.class)).hasViolation());
        EvaluationResult later = rule.evaluate(ModuleClasses.fixture("app"));
        assertTrue(later.hasViolation());
        assertEquals(List.of(FIXTURE + ".view.NewPanel uses " + FIXTURE + ".service.UsesView"),
                later.getFailureReport().getDetails());
    }

    private static JavaClasses app() throws Exception {
        return ModuleClasses.of(Launcher.class);
    }

    /**
     * The class uses no class of the given packages (subpackages included). A violation is one line per
     * pair "top-level class uses class", each pair once, however many members or nested classes make it.
     */
    private static final class UsesNone extends ArchCondition<JavaClass> {
        private final List<String> packages;
        private final Set<String> pairs = new TreeSet<>();
        private final Map<String, JavaClass> origins = new HashMap<>();

        UsesNone(String... packages) {
            super("use no class of " + String.join(", ", packages));
            this.packages = List.of(packages);
        }

        @Override
        public void init(Collection<JavaClass> all) {
            pairs.clear();
            origins.clear();
        }

        @Override
        public void check(JavaClass item, ConditionEvents events) {
            String from = item.getName().replaceFirst("\\$.*", "");
            for (Dependency d : item.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass().getBaseComponentType();
                String pkg = target.getPackageName();
                if (packages.stream().anyMatch(p -> pkg.equals(p) || pkg.startsWith(p + "."))) {
                    String pair = from + " uses " + target.getName();
                    pairs.add(pair);
                    origins.putIfAbsent(pair, item);
                }
            }
        }

        @Override
        public void finish(ConditionEvents events) {
            for (String pair : pairs) {
                events.add(SimpleConditionEvent.violated(origins.get(pair), pair));
            }
        }
    }

    /** A violation store in memory, for the fixture's frozen rule. */
    private static final class MemoryStore implements ViolationStore {
        private final Map<String, List<String>> rules = new HashMap<>();

        @Override
        public void initialize(Properties properties) {
        }

        @Override
        public boolean contains(ArchRule rule) {
            return rules.containsKey(rule.getDescription());
        }

        @Override
        public void save(ArchRule rule, List<String> violations) {
            rules.put(rule.getDescription(), new ArrayList<>(violations));
        }

        @Override
        public List<String> getViolations(ArchRule rule) {
            return rules.getOrDefault(rule.getDescription(), List.of());
        }
    }
}
