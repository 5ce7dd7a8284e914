package io.gradscope.bench;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.gradscope.bench.tools.ConvAB;
import io.gradscope.bench.ui.UsesTools;
import org.junit.jupiter.api.Test;

/**
 * The bench module's packages in rows (docs/ARCHITECTURE.md), checked on its compiled main classes:
 * a package may use the rows below it, the app and the engine.
 *
 * <pre>
 *   bench.tools
 *   bench
 *   bench.ui
 *   app, engine
 * </pre>
 *
 * (That the app and the engine use no bench class Maven sees to: neither depends on this module.)
 */
class BenchLayersTest {
    static ArchRule rows(String bench) {
        return layeredArchitecture().consideringOnlyDependenciesInAnyPackage(bench + "..")
                .layer("ui").definedBy(bench + ".ui")
                .layer("bench").definedBy(bench)
                .layer("tools").definedBy(bench + ".tools")
                .whereLayer("tools").mayNotBeAccessedByAnyLayer()
                .whereLayer("bench").mayOnlyBeAccessedByLayers("tools")
                .whereLayer("ui").mayOnlyBeAccessedByLayers("bench");
    }

    private static JavaClasses main() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.gradscope.bench");
    }

    @Test
    void benchKeepsItsRows() {
        JavaClasses classes = main();
        assertTrue(classes.contain(BenchCommand.class) && classes.contain(io.gradscope.bench.ui.UiBench.class)
                && classes.contain(io.gradscope.bench.tools.StepAB.class), "the main classes are read");
        rows("io.gradscope.bench").check(classes);
    }

    /** The rule fails when broken: a bench-ui class (a test fixture) using a tool. */
    @Test
    void aUiClassUsingAToolBreaksThem() {
        EvaluationResult r = rows("io.gradscope.bench").evaluate(new ClassFileImporter().importClasses(UsesTools.class, ConvAB.class));
        assertTrue(r.hasViolation());
        assertTrue(r.getFailureReport().getDetails().stream().anyMatch(d -> d.contains(UsesTools.class.getName())
                && d.contains(ConvAB.class.getName())), r.getFailureReport().toString());
    }
}
