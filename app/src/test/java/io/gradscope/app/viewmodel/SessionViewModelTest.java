package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import javafx.beans.value.WritableValue;
import org.junit.jupiter.api.Test;

/** The view-model without a window: runs through a same-thread service, cursor moves, node states, the gradients shown. */
class SessionViewModelTest {
    static final String CHAIN = "X = input(4, 3)\nW = param(3, 2)\nY = X @ W\nh = relu(Y)\nloss = sum(h)\n";

    static SessionViewModel session() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("chain.grad", CHAIN);
        return vm;
    }

    @Test
    void anImportedModelOpensInFloat32AndAProgramInFloat64UntilTheUserPicksOne() {
        java.nio.file.Path model = java.nio.file.Path.of("../engine/src/test/resources/onnx/mlp/model.onnx");
        java.nio.file.Path program = java.nio.file.Path.of("../assets/examples/mlp.grad");
        SessionViewModel vm = session();
        vm.open(model);
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT32, vm.dtype().get());
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT32, vm.sweep().recorded().get().run().objective().dtype(), "it ran in float32");
        vm.open(program);
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT64, vm.dtype().get());
        vm.setDType(io.gradscope.engine.tensor.DType.FLOAT32);
        vm.open(program);
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT32, vm.dtype().get(), "picked, it stays");
        vm.setDType(io.gradscope.engine.tensor.DType.FLOAT64);
        vm.open(model);
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT64, vm.dtype().get(), "picked, it stays for a model too");
    }

    @Test
    void fileDialogsStartInTheOpenFilesFolderElseHome(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws java.io.IOException {
        SessionViewModel vm = session();
        java.nio.file.Path home = java.nio.file.Path.of(System.getProperty("user.home"));
        assertEquals(home, vm.dialogFolder(), "text not from a file (an example): home, not the working directory");
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(tmp.resolve("work"));
        java.nio.file.Path program = java.nio.file.Files.writeString(dir.resolve("p.grad"), CHAIN);
        vm.open(program);
        assertEquals(dir.toAbsolutePath(), vm.dialogFolder());
        java.nio.file.Path model = java.nio.file.Path.of("../engine/src/test/resources/onnx/mlp/model.onnx");
        vm.open(model);
        assertEquals(model.toAbsolutePath().getParent(), vm.dialogFolder(), "an imported model: its folder");
    }

    @Test
    void anOnnxModelOpensUnderItsNameAndSavesAsAProgramElsewhere(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws java.io.IOException {
        java.nio.file.Path model = java.nio.file.Path.of("../engine/src/test/resources/onnx/mlp/model.onnx");
        byte[] before = java.nio.file.Files.readAllBytes(model);
        SessionViewModel vm = session();
        vm.open(model);
        assertNull(vm.error().get(), vm.status().get());
        assertEquals(model, vm.model().get());
        assertNull(vm.file().get());
        assertEquals("model.onnx — Gradscope", vm.title().get());
        assertTrue(vm.source().get().startsWith("# Imported from model.onnx"), vm.source().get());
        // Save has no file to write to (never the model): Save As offers the model's name as a program.
        assertFalse(vm.save());
        assertEquals("model.grad", vm.saveName());
        double objective = vm.sweep().recorded().get().run().objective().item();
        vm.saveTo(tmp.resolve("mlp.grad"));
        assertNull(vm.model().get());
        assertEquals(tmp.resolve("mlp.grad"), vm.file().get());
        assertArrayEquals(before, java.nio.file.Files.readAllBytes(model));
        // The weights are saved beside the program, which names them relatively: it runs without the import's temporary folder.
        String saved = java.nio.file.Files.readString(tmp.resolve("mlp.grad"));
        assertFalse(saved.contains("gradscope-import-"), saved);
        assertTrue(saved.contains("init=\"file:mlp_params/"), saved);
        assertEquals(saved, vm.source().get(), "the editor shows what was written");
        assertTrue(java.nio.file.Files.exists(tmp.resolve("mlp_params/names.json")));
        java.nio.file.Path moved = java.nio.file.Files.createDirectory(tmp.resolve("elsewhere"));
        java.nio.file.Files.move(tmp.resolve("mlp.grad"), moved.resolve("mlp.grad"));
        java.nio.file.Files.move(tmp.resolve("mlp_params"), moved.resolve("mlp_params"));
        SessionViewModel again = session();
        assertEquals(io.gradscope.engine.tensor.DType.FLOAT32, vm.dtype().get(), "an imported model opens in its weights' float32");
        again.setDType(vm.dtype().get());
        again.open(moved.resolve("mlp.grad"));
        assertNull(again.error().get(), again.status().get());
        assertEquals(objective, again.sweep().recorded().get().run().objective().item());
    }

    @Test
    void theBackwardSweepVisitsLossReluMatmulThenTheWeights() {
        SweepViewModel vm = session().sweep();
        assertEquals(4, vm.steps());
        assertEquals(-1, vm.cursor().get());
        List<String> order = new java.util.ArrayList<>();
        while (vm.stepForward()) {
            order.add(vm.vertex(vm.currentVertex()).title());
        }
        assertEquals(List.of("loss", "h", "Y", "W"), order);
        assertFalse(vm.stepForward(), "no step past the end");
        assertEquals(3, vm.cursor().get());
        vm.toStart();
        assertEquals(-1, vm.cursor().get());
        assertFalse(vm.stepBack());
        vm.toEnd();
        assertEquals(3, vm.cursor().get());
    }

    @Test
    void nodeStatesFollowTheCursor() {
        SweepViewModel vm = session().sweep();
        // vertices: 0 X, 1 W, 2 Y, 3 h, 4 loss
        Sweep.State[][] expected = {
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.CURRENT},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.CURRENT, Sweep.State.VISITED},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.CURRENT, Sweep.State.VISITED, Sweep.State.VISITED},
            {Sweep.State.OUTSIDE, Sweep.State.CURRENT, Sweep.State.VISITED, Sweep.State.VISITED, Sweep.State.VISITED}};
        for (int step = -1; step < 4; step++) {
            vm.jumpTo(step);
            for (int v = 0; v < 5; v++) {
                assertEquals(expected[step + 1][v], vm.state(v), "vertex " + v + " at cursor " + step);
                // The drawn nodes' looks, kept step by step, agree.
                assertEquals(expected[step + 1][v], vm.graphStates().state("v" + v), "drawn v" + v + " at cursor " + step);
            }
        }
        // Back again: stepping back only moves the cursor.
        vm.stepBack();
        assertEquals(Sweep.State.CURRENT, vm.state(2));
        vm.toStart();
        vm.setMode(Sweep.Mode.FORWARD);
        assertEquals(-1, vm.cursor().get(), "before the first step of one pass is before the first of the other");
        assertEquals(5, vm.steps());
        vm.stepForward();
        assertEquals(Sweep.State.CURRENT, vm.state(0));
        assertEquals(Sweep.State.PENDING, vm.state(4));
        assertEquals(Sweep.State.CURRENT, vm.graphStates().state("v0"));
    }

    @Test
    void theUpstreamGradientShownIsTheEnginesAndMatchesAnIndependentComputation() {
        SweepViewModel vm = session().sweep();
        TraceGraph g = vm.recorded().get().graph();
        double[] x = g.vertex(0).value().toDoubleArray();
        double[] y = g.vertex(2).value().toDoubleArray();
        assertNull(vm.upstream(3), "h has not been reached before the first step");
        vm.toEnd();
        // d loss / d h = 1 everywhere; d loss / d Y = [Y > 0]; d loss / d W = Xᵀ [Y > 0].
        double[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
        assertArrayEquals(ones, vm.upstream(3).toDoubleArray(), 0);
        double[] mask = new double[8];
        for (int i = 0; i < 8; i++) {
            mask[i] = y[i] > 0 ? 1 : 0;
        }
        assertArrayEquals(mask, vm.upstream(2).toDoubleArray(), 0);
        double[] dw = new double[6];
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 2; j++) {
                for (int i = 0; i < 4; i++) {
                    dw[k * 2 + j] += x[i * 3 + k] * mask[i * 2 + j];
                }
            }
        }
        assertArrayEquals(dw, vm.upstream(1).toDoubleArray(), 1e-12);
        assertArrayEquals(vm.recorded().get().run().gradient("W").toDoubleArray(), vm.upstream(1).toDoubleArray(), 0);
        assertNull(vm.upstream(0), "X needs no gradient");
    }

    @Test
    void theCurrentStepLightsTheEdgesItSendsAlong() {
        SweepViewModel vm = session().sweep();
        vm.jumpTo(2); // Y = X @ W sends only to W (X needs no gradient)
        var edges = vm.recorded().get().activeEdges(vm.mode().get(), vm.cursor().get());
        assertEquals(1, edges.size());
        assertEquals(1, edges.get(0).from(), "the edge from W");
        assertEquals(GraphStates.EdgeLook.ACTIVE, vm.graphStates().look(edges.get(0)));
        var sent = vm.recorded().get().contributions(2);
        assertEquals(1, sent.size());
        assertEquals(1, sent.get(0).toVertex());
    }

    @Test
    void findSelectsByNameAndSelectionWinsOverTheCursor() {
        SessionViewModel session = session();
        SweepViewModel vm = session.sweep();
        vm.stepForward();
        assertEquals(4, vm.inspectedVertex());
        assertTrue(vm.find("W"));
        assertEquals(1, vm.inspectedVertex());
        assertEquals("Found W", session.status().get());
        assertTrue(vm.find("rel"), "a partial match of an op name");
        assertEquals(3, vm.selected().get());
        assertEquals("v3", vm.graphStates().selectedKey());
        assertFalse(vm.find("nothing"));
        assertEquals("No node named 'nothing'", session.status().get());
    }

    @Test
    void aRunReportsItsResultAndAMistakeKeepsTheLastGoodRun() {
        SessionViewModel vm = session();
        assertTrue(vm.status().get().startsWith("Ran chain.grad: objective "), vm.status().get());
        assertTrue(vm.status().get().contains(" · 5 nodes · 4 backward steps · "), vm.status().get());
        Sweep good = vm.sweep().recorded().get();
        vm.edit("x = input(32, 784)\nW = param(128, 10)\nlogits = x @ W\nloss = sum(logits)\n");
        vm.run();
        assertEquals("chain.grad:3:12: error: '@' needs matching inner dimensions: [32, 784] @ [128, 10] (784 != 128)",
                vm.error().get().message());
        assertEquals(3, vm.error().get().line());
        assertEquals("Error at line 3, column 12: '@' needs matching inner dimensions: [32, 784] @ [128, 10] (784 != 128)",
                vm.status().get());
        assertSame(good, vm.sweep().recorded().get(), "the last good run stays on screen");
        assertFalse(vm.running().get());
        vm.edit(CHAIN);
        vm.setDType(DType.FLOAT32);
        vm.run();
        assertNull(vm.error().get());
        assertEquals(DType.FLOAT32, vm.sweep().recorded().get().run().objective().dtype());
    }

    @Test
    void anotherTextOpenedDropsTheRunBeforeEvenWhenItsOwnFails() {
        SessionViewModel vm = session();
        vm.sweep().jumpTo(2);
        vm.openText("bad.grad", "a = param(3)\nb = rleu(a)\nloss = sum(b)\n");
        assertEquals(2, vm.error().get().line());
        assertNull(vm.sweep().recorded().get(), "chain.grad's run is not shown beside bad.grad");
        assertNull(vm.sweep().layout().get());
        assertEquals(-1, vm.sweep().cursor().get());
        assertNull(vm.sweep().inspection().get().sweep());
        assertFalse(vm.sweep().stepForward(), "nothing to step");
        assertTrue(vm.onnxOrigin(0).isEmpty());
        // An edit that runs brings a run back; a file that does not open leaves the text and its run alone.
        vm.edit(CHAIN);
        vm.run();
        Sweep good = vm.sweep().recorded().get();
        assertTrue(good != null && good.graph().size() == 5);
        vm.open(java.nio.file.Path.of("no-such-file.grad"));
        assertSame(good, vm.sweep().recorded().get());
    }

    @Test
    void aRunOfATextReplacedWhileItRanIsNotShownAndTheNewTextRuns() {
        // The worker's jobs wait here until the test runs them; the UI thread is this one.
        java.util.List<Runnable> work = new java.util.ArrayList<>();
        SessionViewModel vm = new SessionViewModel(new RunService(work::add, Runnable::run));
        vm.openText("chain.grad", CHAIN);
        String other = "a = param(3)\nloss = sum(a)\n";
        vm.openText("other.grad", other);
        assertEquals(1, work.size(), "one run at a time: other.grad waits for chain.grad's");
        work.remove(0).run();
        assertNull(vm.sweep().recorded().get(), "chain.grad's run is not shown beside other.grad's text");
        assertTrue(vm.running().get(), "other.grad runs now");
        assertEquals(1, work.size());
        work.remove(0).run();
        assertFalse(vm.running().get());
        assertEquals(List.of("a"), vm.sweep().recorded().get().run().leaves().stream().map(l -> l.name()).toList(), "other.grad's run");
    }

    @Test
    void withoutAGpuCudaFallsBackToTheCpuWithANotice() {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.gradscope.engine.tensor.Backends.cudaAvailable(), "a GPU is present");
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.setDevice(Device.CUDA);
        vm.openText("chain.grad", CHAIN);
        assertTrue(vm.status().get().startsWith("CUDA unavailable: ") && vm.status().get().contains("ran on the CPU"),
                vm.status().get());
        assertEquals(Device.CPU, vm.device().get(), "the device selector follows");
        assertEquals(Device.CPU, vm.sweep().recorded().get().run().objective().device());
    }

    @Test
    void collapsingAGroupLaysItOutAgainAndKeepsTheCursor() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("g.grad", "x = input(4, 3)\nW = param(3, 2)\nwith group(\"layer\"):\n    y = x @ W\n    h = relu(y)\nloss = sum(h)\n");
        SweepViewModel s = vm.sweep();
        s.jumpTo(1);
        s.toggleGroup("layer");
        assertEquals(java.util.Set.of("layer"), s.layout().get().collapsed());
        assertTrue(s.layout().get().nodes().containsKey("g:layer"));
        assertEquals(1, s.cursor().get());
        assertEquals(Sweep.State.CURRENT, s.graphStates().state("g:layer"), "h, the current step, is inside");
        s.expandAll();
        assertTrue(s.layout().get().nodes().containsKey("v3"));
        s.collapseAll();
        assertEquals(java.util.Set.of("layer"), s.layout().get().collapsed());
    }

    @Test
    void cancelStopsARunningRunAndTheLastGoodRunStays() throws Exception {
        // A worker thread, and this test's thread as the UI thread (it runs what is handed to it).
        java.util.concurrent.BlockingQueue<Runnable> ui = new java.util.concurrent.LinkedBlockingQueue<>();
        SessionViewModel vm = new SessionViewModel(new RunService(r -> new Thread(r).start(), ui::add));
        StringBuilder big = new StringBuilder("x = param(64, 64)\nh0 = tanh(x)\n");
        for (int i = 1; i < 20_000; i++) {
            big.append("h").append(i).append(" = tanh(h").append(i - 1).append(" @ x)\n");
        }
        vm.edit(big.append("loss = sum(h19999)\n").toString());
        vm.run();
        assertTrue(vm.running().get());
        vm.run(); // ignored while one is running
        vm.cancel();
        while (vm.running().get()) {
            ui.take().run();
        }
        assertEquals("Run cancelled", vm.status().get());
        assertNull(vm.sweep().recorded().get());
        assertNull(vm.error().get());
    }

    @Test
    void theStateIsReadOnlyProperties() {
        SessionViewModel vm = session();
        for (Object p : List.of(vm.source(), vm.fileName(), vm.file(), vm.dtype(), vm.device(), vm.running(), vm.progress(),
                vm.status(), vm.error(), vm.sweep().recorded(), vm.sweep().layout(), vm.sweep().mode(), vm.sweep().cursor(),
                vm.sweep().selected(), vm.sweep().playing(), vm.sweep().speed(), vm.sweep().inspection(), vm.sweep().graphChange())) {
            assertFalse(p instanceof WritableValue, p + " is writable");
        }
    }
}
