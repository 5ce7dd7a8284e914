package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.lang.FunctionTable;
import io.gradscope.engine.lang.Parser;
import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.run.Functions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The docs' function table is the one the op specs give, and names every function a program can call. */
class FunctionTableTest {
    static final Path DOC = Path.of("../docs/PROGRAM-FORMAT.md");

    @Test
    void theDocsTableIsTheGeneratedOne() throws IOException {
        String doc = Files.readString(DOC);
        String updated = FunctionTable.update(doc);
        if (Boolean.getBoolean("gradscope.writeDocs")) {
            Files.writeString(DOC, updated);
            doc = updated;
        }
        assertEquals(updated, doc, DOC + " has an outdated function table: run "
                + "mvn -q -pl engine test -Dtest=FunctionTableTest -Dgradscope.writeDocs=true");
    }

    @Test
    void theDocsStateTheNestingLimitsTheParserHas() throws IOException {
        // Issue 49, 11: the limit on nested 'with' blocks was refused cleanly but documented nowhere.
        String doc = Files.readString(DOC);
        assertTrue(doc.contains("Blocks nest up to **" + Parser.MAX_BLOCKS + " levels** of `with`"), "the 'with' limit");
        assertTrue(doc.contains("(more than " + Parser.MAX_BLOCKS + " levels)"), "its message");
        assertTrue(doc.contains("An expression nests up to " + Parser.MAX_DEPTH + " levels"), "the expression limit");
    }

    @Test
    void everyCallableOpIsInTheTableAndKnownToPrograms() {
        String table = FunctionTable.markdown();
        for (OpSpec s : OpSpecs.all()) {
            if (s.callable()) {
                assertTrue(table.contains("`" + s.name() + "("), s.name() + " missing from the docs table");
                assertTrue(Functions.all().contains(s.name()), s.name() + " unknown to programs");
            }
        }
    }
}
