package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rough edges a new user hit, in the view-models (no window). */
class RoughEdgesViewModelTest {
    static final Path MLP = Path.of("../assets/examples/mlp.grad");

    static int named(SweepViewModel vm, String name) {
        for (TraceGraph.Vertex v : vm.recorded().get().graph().vertices()) {
            if (name.equals(v.name())) {
                return v.index();
            }
        }
        throw new AssertionError("no " + name);
    }

    @Test
    void unsavedEditsMarkTheTitleUntilSaved(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("chain.grad");
        Files.writeString(file, SessionViewModelTest.CHAIN);
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(file);
        assertFalse(vm.modified().get());
        assertEquals("chain.grad — Gradscope", vm.title().get());
        vm.edit(SessionViewModelTest.CHAIN + "# more\n");
        assertTrue(vm.modified().get());
        assertEquals("● chain.grad — Gradscope", vm.title().get());
        vm.edit(SessionViewModelTest.CHAIN);
        assertFalse(vm.modified().get(), "typed back to what was saved");
        vm.edit("X = input(2, 2)\nloss = sum(X)\n");
        assertTrue(vm.save());
        assertFalse(vm.modified().get());
        assertEquals("X = input(2, 2)\nloss = sum(X)\n", Files.readString(file));
        vm.openText("mlp.grad", "X = input(2, 2)\nloss = sum(X)\n");
        assertFalse(vm.modified().get(), "an example just opened has no edits");
    }

    @Test
    void aMissingFileSaysNoSuchFile() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("nonexist.grad"));
        assertEquals("Cannot open nonexist.grad: no such file", vm.status().get());
    }

    @Test
    void theAppComputesInFloat64UnlessAsked() {
        assertEquals(DType.FLOAT64, new SessionViewModel(RunService.direct()).dtype().get());
    }

    @Test
    void aNaNObjectiveIsSaidToBeNaN() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("nan.grad", "x = param(2, 2)\nloss = sum(log(x * 0 - 1))\n");
        assertTrue(vm.status().get().contains("objective NaN"), vm.status().get());
    }

    @Test
    void switchingThePassKeepsTheVertex() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.open(MLP);
        SweepViewModel vm = session.sweep();
        int logits = named(vm, "logits");
        vm.setMode(Sweep.Mode.FORWARD);
        vm.jumpTo(vm.recorded().get().stepOf(Sweep.Mode.FORWARD, logits));
        vm.setMode(Sweep.Mode.BACKWARD);
        assertEquals(logits, vm.currentVertex(), "still on logits");
        assertEquals(1, vm.cursor().get(), "logits is the second backward step");
        vm.setMode(Sweep.Mode.FORWARD);
        assertEquals(logits, vm.currentVertex(), "and back");
        // A vertex the backward pass never reaches (the input x) keeps the step number.
        vm.jumpTo(0);
        assertEquals("x", vm.vertex(vm.currentVertex()).title());
        vm.setMode(Sweep.Mode.BACKWARD);
        assertEquals(0, vm.cursor().get());
    }

    @Test
    void aLeafShowsWhatItHasReceivedBeforeItsOwnStep() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.open(MLP);
        SweepViewModel vm = session.sweep();
        int w2 = named(vm, "W2");
        vm.jumpTo(5); // backward step 6: matmul sends to W1; W2's matmul sent to it at step 3
        assertNull(vm.upstream(w2), "its gradient is complete only at its own step");
        Sweep.Received r = vm.received(w2);
        assertEquals(1, r.count());
        assertEquals(1, r.total());
        assertEquals(7, r.completeAt(), "complete at step 8");
        List<Sweep.Contribution> sent = vm.recorded().get().contributions(2);
        Sweep.Contribution toW2 = sent.stream().filter(c -> c.toVertex() == w2).findFirst().orElseThrow();
        assertArrayEquals(toW2.gradient().toDoubleArray(), r.sum().toDoubleArray(), 0);
        vm.jumpTo(1);
        assertNull(vm.received(w2).sum(), "nothing before step 3");
        vm.jumpTo(7);
        assertArrayEquals(vm.upstream(w2).toDoubleArray(), vm.received(w2).sum().toDoubleArray(), 1e-12,
                "once complete, what it received is its gradient");
    }

    @Test
    void recentFilesKeepOneSpellingPerFile(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("x_y.grad"), "");
        Files.createDirectories(tmp.resolve("sub"));
        StringBuilder store = new StringBuilder();
        RecentFiles recent = new RecentFiles(store::toString, s -> store.replace(0, store.length(), s));
        recent.add(file);
        recent.add(tmp.resolve("sub/../x_y.grad"));
        recent.add(tmp.resolve("./x_y.grad"));
        assertEquals(List.of(file.toRealPath()), recent.list());
        Path other = Files.writeString(tmp.resolve("other.grad"), "");
        recent.add(other);
        assertEquals(List.of(other.toRealPath(), file.toRealPath()), recent.list());
        // Spellings stored before are merged when read.
        store.replace(0, store.length(), file + "\n" + tmp.resolve("sub/../x_y.grad"));
        assertEquals(1, recent.list().size());
        // A screenshot's window reads the list and adds nothing to it.
        RecentFiles shown = recent.readOnly();
        shown.add(other);
        assertEquals(List.of(file.toRealPath()), shown.list());
        assertEquals(List.of(file.toRealPath()), recent.list());
    }
}
