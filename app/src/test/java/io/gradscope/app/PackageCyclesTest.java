package io.gradscope.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * No import cycle between packages, in either module, read from the compiled main classes with
 * ArchUnit (every use a class file records: signatures, fields, calls, casts, not only
 * {@code import} lines).
 *
 * <p>How packages count: every package is a node of its own, a subpackage included
 * ({@code device.cpu} may use {@code device}, and then {@code device} may not use
 * {@code device.cpu}); the classes directly in a module's root package ({@code Launcher},
 * {@code GradscopeException}) are the node {@code (root)}. This is stricter than ArchUnit's
 * {@code slices().matching("io.gradscope.engine.(*)..")}, which folds subpackages into their parent
 * and leaves the root package out.
 *
 * <p>Both modules are checked here because this module's tests see both modules' classes. On a
 * failure the message names every dependency that lies on a cycle (between two packages of one
 * strongly connected component of the package graph): cut one of them.
 */
class PackageCyclesTest {
    @Test
    void engineHasNoPackageCycle() throws Exception {
        checkNoCycles(io.gradscope.engine.tensor.Tensor.class, "io.gradscope.engine");
    }

    @Test
    void appHasNoPackageCycle() throws Exception {
        checkNoCycles(Launcher.class, "io.gradscope.app");
    }

    @Test
    void edgesInCyclesAreThoseWithinOneStronglyConnectedComponent() {
        Map<String, Set<String>> g = new TreeMap<>();
        g.put("a", Set.of("b"));
        g.put("b", Set.of("a", "c"));
        g.put("c", Set.of("d"));
        g.put("d", Set.of("e"));
        g.put("e", Set.of("c", "f"));
        g.put("f", Set.of());
        assertEquals(Set.of("a -> b", "b -> a", "c -> d", "d -> e", "e -> c"), edgesInCycles(g));
    }

    /** Checks the packages under {@code root} of the module (folder or jar) that holds {@code member}. */
    private static void checkNoCycles(Class<?> member, String root) throws Exception {
        Map<String, Set<String>> graph = packageGraph(member, root);
        assertFalse(graph.size() < 5, "the classes of " + root + " were not found (" + graph.keySet() + ")");
        assertEquals(Set.of(), edgesInCycles(graph), "dependencies that lie on a package cycle of " + root);
    }

    /**
     * Package (relative to {@code root}) to the packages its classes use, itself excluded, for the
     * module that holds {@code member} (only its classes are read: no scan of the class path).
     */
    static Map<String, Set<String>> packageGraph(Class<?> member, String root) throws Exception {
        // a folder of classes, or the module's jar (a reactor build past its package phase hands over the jar)
        Path module = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
        ClassFileImporter importer = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS);
        JavaClasses classes;
        if (Files.isDirectory(module)) {
            classes = importer.importPath(module);
        } else {
            try (JarFile jar = new JarFile(module.toFile())) {
                classes = importer.importJar(jar);
            }
        }
        Map<String, Set<String>> graph = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = node(root, c.getPackageName());
            if (from == null) {
                continue;
            }
            graph.computeIfAbsent(from, k -> new TreeSet<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = node(root, d.getTargetClass().getBaseComponentType().getPackageName());
                if (to != null && !to.equals(from)) {
                    graph.get(from).add(to);
                    graph.computeIfAbsent(to, k -> new TreeSet<>());
                }
            }
        }
        return graph;
    }

    /** {@code pkg} relative to {@code root} ("device.cpu", "(root)"), or null outside it. */
    private static String node(String root, String pkg) {
        if (pkg.equals(root)) {
            return "(root)";
        }
        return pkg.startsWith(root + ".") ? pkg.substring(root.length() + 1) : null;
    }

    /** Every edge "a -> b" whose two ends lie in one strongly connected component (Tarjan's algorithm). */
    static Set<String> edgesInCycles(Map<String, Set<String>> graph) {
        Map<String, Integer> component = new HashMap<>();
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        int[] counter = {0, 0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, graph, index, low, stack, onStack, component, counter);
            }
        }
        Set<String> edges = new TreeSet<>();
        graph.forEach((a, targets) -> {
            for (String b : targets) {
                if (component.get(a).equals(component.get(b))) {
                    edges.add(a + " -> " + b);
                }
            }
        });
        return edges;
    }

    private static void strongConnect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
                                      Deque<String> stack, Set<String> onStack, Map<String, Integer> component, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : graph.get(v)) {
            if (!index.containsKey(w)) {
                strongConnect(w, graph, index, low, stack, onStack, component, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.put(w, counter[1]);
            } while (!w.equals(v));
            counter[1]++;
        }
    }
}
