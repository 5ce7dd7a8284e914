package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.forward.Tangents;
import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Builds a program's leaves: reads a {@code input(...)}, {@code param(...)} or {@code labels(...)}
 * call into a {@link Leaf}, counts its memory, checks its values file, and (when running) makes its
 * tensor on the run's device, announces its allocation and publishes its {@code Leaf} event.
 */
final class LeafBuilder {
    /** A leaf declared, and its value (only a shape and dtype when checking). */
    record Built(Leaf leaf, TensorVal value) {
    }

    private final String file;
    private final boolean checking;
    private final RunOptions options;
    private final MemoryCheck memory;

    LeafBuilder(String file, boolean checking, RunOptions options, MemoryCheck memory) {
        this.file = file;
        this.checking = checking;
        this.options = options;
        this.memory = memory;
    }

    private ProgramException error(Pos pos, String what) {
        return new ProgramException(file, pos, what);
    }

    /** The leaf {@code name = c}, whose arguments are {@code a}. */
    Built build(String name, Ast.Call c, Args a) {
        String fn = c.function();
        int[] shape;
        Leaf leaf;
        switch (fn) {
            case "input" -> {
                a.allow(0, Integer.MAX_VALUE, "input(d0, d1, ..., grad=False, init=\"file:PATH.npy\")", "grad", "init");
                shape = dims(a);
                leaf = new Leaf(name, Leaf.Kind.INPUT, shape, a.bool(-1, "grad", false), fileInit(a, c), 0, c.pos());
            }
            case "param" -> {
                a.allow(0, Integer.MAX_VALUE, "param(d0, d1, ..., init=\"normal\")", "init");
                shape = dims(a);
                String init = a.string(-1, "init", "normal");
                if (!Set.of("normal", "zeros", "ones", "uniform").contains(init) && !LeafFiles.isFile(init)) {
                    throw error(c.keywords().get(0).value().pos(), "param(): init must be one of \"normal\", \"zeros\", "
                            + "\"ones\", \"uniform\" or \"file:PATH.npy\", not \"" + init + "\""
                            + Names.didYouMean(init, List.of("normal", "zeros", "ones", "uniform")));
                }
                leaf = new Leaf(name, Leaf.Kind.PARAM, shape, true, init, 0, c.pos());
            }
            default -> {
                a.allow(0, Integer.MAX_VALUE, "labels(d0, ..., classes=C, init=\"file:PATH.npy\")", "classes", "init");
                shape = dims(a);
                int classes = a.integer(-1, "classes", null);
                if (classes < 1) {
                    throw error(c.pos(), "labels(): classes must be at least 1, not " + classes);
                }
                leaf = new Leaf(name, Leaf.Kind.LABELS, shape, false, fileInit(a, c), classes, c.pos());
            }
        }
        DType dt = leaf.kind() == Leaf.Kind.LABELS ? DType.INT64 : options.dtype();
        memory.account(c.pos(), () -> "'" + name + "'", shape, dt, leaf.grad());
        Path values;
        try {
            values = LeafFiles.isFile(leaf.init()) ? LeafFiles.resolve(file, leaf.init()) : null;
        } catch (GradscopeException e) {
            throw error(c.pos(), "'" + name + "': " + e.getMessage());
        }
        if (values != null && !Files.isReadable(values)) {
            throw error(c.pos(), "'" + name + "': cannot read its values file " + LeafFiles.path(leaf.init()) + " (" + values + ")");
        }
        if (checking) {
            return new Built(leaf, new TensorVal(shape, dt, null));
        }
        MemoryCategory category = leaf.kind() == Leaf.Kind.PARAM ? MemoryCategory.PARAMETER : MemoryCategory.ACTIVATION;
        // Made in a scope so that its allocation is announced with its id (and a device upload's host copy is scratch).
        Allocations.Scope scope = Allocations.open(category);
        Tensor made = null;
        try {
            made = make(leaf, dt, values);
            if (leaf.grad()) {
                made.setRequiresGrad(true);
                Node.of(made).setLabel(name);
            }
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(c.pos(), "'" + name + "': " + e.getMessage());
        } finally {
            Tensor kept = made;
            long id = kept == null ? -1 : Recorder.active() ? Recorder.name(kept) : kept.node() != null ? kept.node().id() : -1;
            scope.close(kept == null ? List.of() : List.of(kept), id, StorageRole.LEAF, true);
        }
        Tensor t = Tangents.leafCreated(leaf.name(), made);
        if (Recorder.active()) {
            TraceEvent.LeafKind kind = switch (leaf.kind()) {
                case INPUT -> TraceEvent.LeafKind.INPUT;
                case PARAM -> TraceEvent.LeafKind.PARAM;
                case LABELS -> TraceEvent.LeafKind.LABELS;
            };
            Recorder.at(c.pos().line(), c.pos().column());
            Recorder.emit(TraceEvent.Leaf.of(name, kind, t));
            Tangents.recordLeaf(t);
        }
        return new Built(leaf, new TensorVal(shape, dt, t));
    }

    /**
     * A leaf's value on the run's device. On the meta device nothing is drawn (and a given value's
     * storage is not the program's, as on the CPU).
     */
    private Tensor make(Leaf leaf, DType dt, Path fromFile) {
        Device dev = options.device();
        if (dev == Device.META) {
            return options.inputs().containsKey(leaf.name())
                    ? Allocations.unannounced(() -> Tensor.zeros(dt, dev, leaf.shape())) : Tensor.zeros(dt, dev, leaf.shape());
        }
        return Leaves.make(leaf, options, fromFile).toDevice(dev);
    }

    /** An input's or labels' {@code init="file:PATH.npy"}, or null. */
    private String fileInit(Args a, Ast.Call c) {
        String init = a.string(-1, "init", null);
        if (init != null && !LeafFiles.isFile(init)) {
            throw error(c.pos(), c.function() + "(): init takes a values file, init=\"file:PATH.npy\", not \"" + init + "\"");
        }
        return init;
    }

    private int[] dims(Args a) {
        int[] d = a.intsFrom(0, "a dimension");
        for (int i = 0; i < d.length; i++) {
            if (d[i] < 0) {
                throw error(a.positionOf(Math.min(i, a.count() - 1)), a.fn() + "(): dimensions must be non-negative, not " + d[i]);
            }
        }
        return d;
    }
}
