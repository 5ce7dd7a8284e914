package io.gradscope.app;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;

/** The main classes of one module, read with ArchUnit for the layer tests. */
final class ModuleClasses {
    private ModuleClasses() {
    }

    /**
     * The main classes (no tests) of the module that holds {@code member}: its folder of classes, or
     * its jar when a reactor build past the package phase hands over the jar. Only that module is
     * read, not the whole class path.
     */
    static JavaClasses of(Class<?> member) throws Exception {
        Path module = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
        ClassFileImporter importer = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS);
        if (Files.isDirectory(module)) {
            return importer.importPath(module);
        }
        try (JarFile jar = new JarFile(module.toFile())) {
            return importer.importJar(jar);
        }
    }

    /** The test fixtures under {@code io.gradscope.app.archfixture.SUB}: small classes that break one rule each. */
    static JavaClasses fixture(String sub) {
        return new ClassFileImporter().importPackages("io.gradscope.app.archfixture." + sub);
    }
}
