package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.ProgramJacobians;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Above the tab's limit, the choices besides "Compute anyway": the pattern alone (no products), and
 * a block of rows or of columns that fits the limit, evaluated exactly (against the dense float32
 * Jacobian, row by row) and nothing outside it; the estimate and the choices stay in view.
 */
class JacobianPartsTest {
    @Test
    void patternOnlyTakesNoProductsAndABlockIsTheDenseJacobiansRowsOrColumns() {
        String before = System.getProperty("gradscope.jacobian.maxSeconds");
        System.setProperty("gradscope.jacobian.maxSeconds", "0");
        try {
            SessionViewModel vm = new SessionViewModel(RunService.direct());
            vm.open(JacobianViewModelTest.MLP);
            JacobianViewModel j = vm.jacobian();
            j.setOutput(vm.sweep().recorded().get().find("h"));
            assertNotNull(j.aboveLimit().get(), j.note().get());
            assertEquals(1, j.blockSize(true), "a limit of 0 s leaves one row");
            SparseMatrix dense = Jacobians.denseByRows(ProgramJacobians.of(Program.load(JacobianViewModelTest.MLP),
                    new RunOptions(DType.FLOAT32, 0, Map.of()), "h", "W1"));

            j.computePatternOnly();
            JacobianResult r = j.result().get();
            assertNotNull(r, j.note().get());
            assertEquals(32 * 64 * 20, r.pattern().nnz(), "h[r, k] on column k of W1 (20 entries)");
            assertEquals(0, r.products(), "no products");
            assertEquals("Pattern only: not evaluated (no products).", j.note().get());
            assertNotNull(j.aboveLimit().get(), "the choices stay in view");

            j.computeBlock(true);
            r = j.result().get();
            assertEquals(20, r.pattern().nnz(), "row 0 only: h[0, 0] on column 0 of W1 (global pattern)");
            assertTrue(r.products() <= 1, r.products() + " products for one row");
            for (int c = 0; c < r.cols(); c++) {
                assertEquals(dense.get(0, c), r.values().get(0, c), 1e-6, "column " + c);
            }
            assertTrue(j.note().get().startsWith("Rows 0 to 0 of 2048 evaluated"), j.note().get());

            j.computeBlock(false);
            r = j.result().get();
            int inColumn0 = 0;
            for (int i = 0; i < r.rows(); i++) {
                inColumn0 += dense.nonzeros().contains(i, 0) ? 1 : 0;
                assertEquals(dense.get(i, 0), r.values().get(i, 0), 1e-6, "row " + i);
            }
            assertEquals(32, r.pattern().nnz(), "W1[0, 0] reaches h[r, 0] for the 32 rows r (global pattern)");
            assertTrue(inColumn0 <= 32);
            assertTrue(r.products() <= 1, r.products() + " products for one column");
            assertTrue(j.note().get().startsWith("Columns 0 to 0 of 1280 evaluated"), j.note().get());
        } finally {
            if (before == null) {
                System.clearProperty("gradscope.jacobian.maxSeconds");
            } else {
                System.setProperty("gradscope.jacobian.maxSeconds", before);
            }
        }
    }
}
