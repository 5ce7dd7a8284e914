package io.gradscope.app;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Helpers of the layer tests: layers stacked in rows, and the lines of a rule's failure. */
final class LayerRules {
    private LayerRules() {
    }

    /**
     * A layered architecture of {@code rows}, bottom row first, each layer a name and its packages:
     * a layer may use the layers of the rows below it and no layer of its own row or above, except
     * the layers in {@code unused}, which no layer may use. Every imported class must lie in a layer,
     * so a new package fails the rule until it is given a place. The layers in {@code outside} lie
     * in classes not imported (the engine, seen from the app's classes): they may be empty.
     */
    static LayeredArchitecture rows(String[][][] rows, Set<String> unused, Set<String> outside) {
        LayeredArchitecture arch = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture();
        for (String[][] row : rows) {
            for (String[] layer : row) {
                String name = layer[0];
                arch = (outside.contains(name) ? arch.optionalLayer(name) : arch.layer(name)).definedBy(List.of(layer).subList(1, layer.length).toArray(String[]::new));
            }
        }
        List<String> below = new ArrayList<>();
        for (String[][] row : rows) {
            for (String[] layer : row) {
                arch = below.isEmpty() ? arch.whereLayer(layer[0]).mayNotAccessAnyLayer()
                        : arch.whereLayer(layer[0]).mayOnlyAccessLayers(below.toArray(String[]::new));
            }
            for (String[] layer : row) {
                if (!unused.contains(layer[0])) {
                    below.add(layer[0]);
                }
            }
        }
        for (String name : unused) {
            arch = arch.whereLayer(name).mayNotBeAccessedByAnyLayer();
        }
        return arch;
    }

    /** The lines of {@code rule}'s failure report on {@code classes} (empty when it holds). */
    static List<String> violations(ArchRule rule, JavaClasses classes) {
        return rule.evaluate(classes).getFailureReport().getDetails();
    }

    /** Asserts that one line of the failure names both {@code from} and {@code to}. */
    static void assertBroken(ArchRule rule, JavaClasses classes, String from, String to) {
        List<String> lines = violations(rule, classes);
        assertTrue(lines.stream().anyMatch(l -> l.contains(from) && l.contains(to)),
                "expected a violation " + from + " -> " + to + ", got " + lines);
    }
}
