package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import org.junit.jupiter.api.Test;

/** Find steps through every match, names before ops, and says which of how many it shows. */
class FindStepsTest {
    /** Four multiplications (a, b, c, d) and one name holding "mul" (mul_c, an exp). */
    private static final String PROGRAM = "x = input(4)\nw = param(4)\na = x * w\nb = a * w\nmul_c = exp(b)\nc = b * w\n"
            + "d = c * mul_c\nloss = sum(d)\n";

    private static String selectedName(SweepViewModel vm) {
        return vm.vertex(vm.selected().get()).title();
    }

    @Test
    void enterStepsThroughNamesThenOpsAndRoundTheEnd() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("muls.grad", PROGRAM);
        SweepViewModel vm = session.sweep();
        String[] order = {"mul_c", "a", "b", "c", "d"};
        for (int i = 0; i < order.length; i++) {
            assertTrue(vm.find("mul"));
            assertEquals(order[i], selectedName(vm));
            assertEquals((i + 1) + " of 5", vm.findCount().get());
        }
        assertTrue(vm.find("mul"));
        assertEquals("mul_c", selectedName(vm), "round the end");
        assertEquals("1 of 5", vm.findCount().get());
        assertTrue(vm.find("mul", -1));
        assertEquals("d", selectedName(vm), "back round the start");
        assertEquals("5 of 5", vm.findCount().get());
        assertTrue(vm.find("mul", -1));
        assertEquals("c", selectedName(vm));
        assertTrue(session.status().get().startsWith("Found c, 4 of 5"), session.status().get());
    }

    @Test
    void aNewQueryStartsAgainAndAnExactNameComesFirst() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("muls.grad", PROGRAM);
        SweepViewModel vm = session.sweep();
        vm.find("mul");
        vm.find("mul");
        // "c" is a name; mul_c contains it; no op does.
        assertTrue(vm.find("c"));
        assertEquals("c", selectedName(vm));
        assertEquals("1 of 2", vm.findCount().get());
        assertTrue(vm.find("c"));
        assertEquals("mul_c", selectedName(vm));
        // Going back with a new query starts at its last match.
        assertTrue(vm.find("MUL", -1));
        assertEquals("d", selectedName(vm));
        vm.forgetFind();
        assertEquals("", vm.findCount().get());
        assertFalse(vm.find("nothing"));
        assertEquals("no match", vm.findCount().get());
        // Another run: the count is gone, the next Enter finds afresh.
        vm.find("mul");
        session.openText("muls.grad", PROGRAM);
        assertEquals("", session.sweep().findCount().get());
        assertTrue(session.sweep().find("mul"));
        assertEquals("1 of 5", session.sweep().findCount().get());
    }
}
