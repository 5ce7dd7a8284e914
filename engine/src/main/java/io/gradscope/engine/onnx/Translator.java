package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Turns an ONNX graph into program statements. Every tensor name of the graph has a value: a known
 * {@link Const} (initializers, Constant nodes and whatever folds from them: shapes, masks, indices),
 * a program tensor (a name bound by a statement, with its static shape), or missing (downstream of an
 * unsupported node). Known values become program leaves only where a program op needs them:
 * initializers as {@code param} leaves (batch norm's running statistics as {@code input} leaves),
 * other float constants as {@code input} leaves read from a file, integer ones as {@code labels};
 * a float value folded from parameters is computed in the program instead, so the parameters keep
 * their gradients.
 */
final class Translator {
    /** A value of the graph. */
    sealed interface Val permits Known, Tensor, Missing {
    }

    record Known(Const c) implements Val {
    }

    /** A program tensor: the statement's name, its static shape, int64 (labels) or float. */
    record Tensor(String name, int[] shape, boolean isInt) implements Val {
        Tensor {
            shape = shape.clone();
        }

        /** A copy: rules change shapes they compute from it. */
        @Override
        public int[] shape() {
            return shape.clone();
        }

        int rank() {
            return shape.length;
        }
    }

    /**
     * Downstream of a node the import refused. {@code kind} is that refusal's (null past a node that was
     * not checked) and {@code guess} the shape of the refused node's first tensor input, the stand-in
     * its readers are checked with (Note [Chained refusals]).
     */
    record Missing(String kind, int[] guess, boolean isInt) implements Val {
        static final Missing UNKNOWN = new Missing(null, null, false);
    }

    /** How an initializer is declared when the program needs it. */
    enum LeafKind { PARAM, CONSTANT }

    final OnnxFile file;
    final int opset;
    final ProgramText text;
    final OnnxMl.GraphProto graph;
    final Map<String, Val> values = new HashMap<>();
    private final Map<String, Const> initializers = new LinkedHashMap<>();
    /** Each ONNX initializer's program name (null until the program uses it as a tensor). */
    final Map<String, String> initializerNames = new LinkedHashMap<>();
    final Map<String, String> inputNames = new LinkedHashMap<>();
    final Map<String, String> outputNames = new LinkedHashMap<>();
    private final Map<String, OnnxMl.NodeProto> producer = new HashMap<>();
    /** PyTorch's exact-GELU chains, each written as one gelu(x). */
    private GeluPattern gelu;
    /** PyTorch's LayerNorm chains below opset 17, each written as one layer_norm. */
    private LayerNormPattern layerNorms;
    /** The nodes refused, reported together once the graph has been read. */
    final Refusals refusals = new Refusals(this);
    private final Map<String, Integer> perModule = new HashMap<>();
    /** Names for the exporter's numbered initializers, from the modules that read them ({@link ModuleNames}). */
    private Map<String, String> moduleNames = Map.of();
    final Map<String, Integer> classesOf = new HashMap<>();
    final Map<String, String> dims;
    /** The symbolic dimensions the inputs name (each --dim must be one of them). */
    final java.util.Set<String> symbols = new java.util.TreeSet<>();
    /** The values to write under params/, by program leaf name. */
    final Map<String, Const> files = new LinkedHashMap<>();
    private List<String> groups = List.of();
    private String comment = "";
    final OpRules rules;
    /** How the program names the folder of its parameter files ({@code params}, or an absolute path). */
    private final String paramsFolder;
    /** The size a symbolic dimension gets when no --dim names it (0: refuse, as gradscope import does). */
    int unnamedSize;
    /** Whether a training-mode Dropout runs as the program's seeded dropout (--dropout seeded) rather than being refused. */
    boolean seededDropout;
    /** The training-mode Dropout nodes written as seeded dropout: each its own seed, 0, 1, 2, ... */
    int seededDropouts;

    Translator(OnnxFile file, OnnxMl.ModelProto model, ProgramText text, Map<String, String> dims, String paramsFolder) {
        this.file = file;
        this.paramsFolder = paramsFolder;
        this.graph = model.getGraph();
        this.text = text;
        this.dims = dims;
        int v = 0;
        for (OnnxMl.OperatorSetIdProto o : model.getOpsetImportList()) {
            if (o.getDomain().isEmpty() || o.getDomain().equals("ai.onnx")) {
                v = (int) o.getVersion();
            }
        }
        this.opset = v;
        this.rules = new OpRules(this);
    }

    GradscopeException error(String what) {
        return file.error(what);
    }

    /** Refuses node {@code n}: {@code what} the import does not support (reported with the rest at the end). */
    void unsupported(OnnxMl.NodeProto n, String what) {
        refusals.note(n, what);
    }

    // ---- the whole graph ----------------------------------------------------------------------

    /** Translates the graph; the objective is {@code loss} of the first output. */
    void run(String loss) {
        for (OnnxMl.TensorProto t : graph.getInitializerList()) {
            Const c = file.tensor(t, "initializer '" + t.getName() + "'");
            initializers.put(t.getName(), new Const(c.shape(), c.data(), c.type(), c.isFloat()));
            initializerNames.put(t.getName(), null);
            values.put(t.getName(), new Known(initializers.get(t.getName())));
        }
        moduleNames = ModuleNames.of(graph, initializers);
        for (OnnxMl.NodeProto n : graph.getNodeList()) {
            if (!n.getOpType().equals("Constant")) {
                perModule.merge(String.join("/", ModuleNames.modules(n.getName())), 1, Integer::sum);
            }
            for (String o : n.getOutputList()) {
                producer.put(o, n);
            }
            // integer inputs used as embedding indices: their class count is the table's row count
            if (n.getOpType().equals("Gather") && n.getInputCount() == 2 && initializers.containsKey(n.getInput(0))) {
                int[] s = initializers.get(n.getInput(0)).shape();
                if (s.length > 0) {
                    classesOf.put(n.getInput(1), s[0]);
                }
            }
        }
        Set<String> graphOutputs = graph.getOutputList().stream().map(OnnxMl.ValueInfoProto::getName).collect(Collectors.toSet());
        gelu = new GeluPattern(graph.getNodeList(), producer, graphOutputs, this::scalarConstant);
        layerNorms = new LayerNormPattern(graph.getNodeList(), producer, graphOutputs, this::scalarConstant);
        refusals.checkOperators(graph);
        for (OnnxMl.ValueInfoProto in : graph.getInputList()) {
            if (!initializers.containsKey(in.getName())) {
                GraphEnds.declareInput(this, in);
            }
        }
        for (OnnxMl.NodeProto n : graph.getNodeList()) {
            translate(n, false);
        }
        refusals.report();
        GraphEnds.objective(this, loss);
    }

    // ---- one node ----------------------------------------------------------------------------

    void translate(OnnxMl.NodeProto n, boolean force) {
        List<String> saveGroups = groups;
        String saveComment = comment;
        groups = ModuleNames.groupsOf(ModuleNames.modules(n.getName()));
        comment = NodeOrigin.of(n).comment();
        try {
            translateIn(n, force);
        } finally {
            groups = saveGroups;
            comment = saveComment;
        }
    }

    private void translateIn(OnnxMl.NodeProto n, boolean force) {
        String op = n.getOpType();
        if (!Refusals.known(n)) {
            missing(n);
            return;
        }
        if (gelu.inner(n) || layerNorms.inner(n)) {
            return;
        }
        LayerNormPattern.Chain norm = layerNorms.endsWith(n);
        if (norm != null) {
            int written = LayerNormPattern.write(this, norm);
            if (written == norm.nodes().size()) {
                return;
            }
            layerNorms.release(norm);
            for (OnnxMl.NodeProto k : norm.nodes().subList(written, norm.nodes().size() - 1)) {
                translate(k, false);
            }
        }
        String geluOf = gelu.endsWith(n);
        if (geluOf != null) {
            if (values.get(geluOf) instanceof Missing) {
                refusals.unchecked++;
                missing(n);
            } else {
                Tensor x = tensor(geluOf, LeafKind.PARAM);
                emit(n, 0, "gelu(" + x.name() + ")", x.shape(), false);
            }
            return;
        }
        Val[] in = new Val[n.getInputCount()];
        boolean allKnown = true;
        for (int i = 0; i < in.length; i++) {
            String name = n.getInput(i);
            if (name.isEmpty()) {
                continue;
            }
            in[i] = values.get(name);
            if (in[i] == null) {
                throw error("node '" + n.getName() + "' reads '" + name + "', which no earlier node produces (the graph is not in order)");
            }
            if (in[i] instanceof Missing) {
                refusals.readsRefused(n, in);
                return;
            }
            allKnown &= in[i] instanceof Known;
        }
        Attrs at = new Attrs(n);
        if (op.equals("Constant")) {
            set(n, 0, new Known(constant(n, at)));
            return;
        }
        boolean shapeOnly = (op.equals("Shape") || op.equals("Size")) && in[0] instanceof Tensor;
        if ((allKnown && !force) || shapeOnly) {
            Const[] cs = new Const[in.length];
            for (int i = 0; i < in.length; i++) {
                cs[i] = in[i] instanceof Known k ? k.c() : null;
            }
            if (shapeOnly) {
                int[] s = ((Tensor) in[0]).shape();
                cs[0] = Const.of(s, new double[(int) Shapes.numel(s)], Const.FLOAT);
            }
            Const[] out = null;
            try {
                out = ConstantFolder.fold(op, at, cs, opset);
            } catch (RuntimeException e) {
                out = null;
            }
            if (out != null) {
                for (int i = 0; i < out.length && i < n.getOutputCount(); i++) {
                    set(n, i, new Known(out[i]));
                }
                return;
            }
        }
        if (!rules.apply(n, at, in)) {
            refusals.refused(n, in);
        }
    }

    void missing(OnnxMl.NodeProto n) {
        for (int i = 0; i < n.getOutputCount(); i++) {
            set(n, i, Missing.UNKNOWN);
        }
    }

    /** The value of a one-element constant (an initializer or a Constant node's output), or null. */
    private Double scalarConstant(String name) {
        Const c = initializers.get(name);
        OnnxMl.NodeProto p = producer.get(name);
        if (c == null && p != null && p.getOpType().equals("Constant")) {
            try {
                c = constant(p, new Attrs(p));
            } catch (RuntimeException e) {
                return null;
            }
        }
        return c != null && c.isFloat() && c.data().length == 1 ? c.data()[0] : null;
    }

    private Const constant(OnnxMl.NodeProto n, Attrs at) {
        if (at.t("value") != null) {
            return file.tensor(at.t("value"), "the value of Constant node '" + n.getName() + "'");
        }
        if (at.has("value_float")) {
            return Const.scalar(at.f("value_float", 0), Const.FLOAT);
        }
        if (at.has("value_int")) {
            return Const.scalar(at.i("value_int", 0), Const.INT64);
        }
        if (at.has("value_floats")) {
            double[] v = at.floats("value_floats");
            return Const.of(new int[] {v.length}, v, Const.FLOAT);
        }
        if (at.has("value_ints")) {
            int[] v = at.ints("value_ints");
            return Const.of(new int[] {v.length}, java.util.Arrays.stream(v).asDoubleStream().toArray(), Const.INT64);
        }
        throw error("Constant node '" + n.getName() + "' has no value the import reads (sparse or string constants are not supported)");
    }

    void set(OnnxMl.NodeProto n, int output, Val v) {
        if (output < n.getOutputCount() && !n.getOutput(output).isEmpty()) {
            values.put(n.getOutput(output), v);
        }
    }

    // ---- statements and leaves ------------------------------------------------------------------

    /** The statement name for output {@code k} of node {@code n}. */
    String statementName(OnnxMl.NodeProto n, int k) {
        return text.name(baseName(n, k));
    }

    /** The name {@link #statementName} starts from (not yet reserved). */
    private String baseName(OnnxMl.NodeProto n, int k) {
        List<String> mods = ModuleNames.modules(n.getName());
        List<String> g = ModuleNames.groupsOf(mods);
        String[] parts = n.getName().split("/");
        String opPart = parts.length == 0 || parts[parts.length - 1].isEmpty() ? n.getOpType() : parts[parts.length - 1];
        String base;
        if (g.isEmpty()) {
            base = ProgramText.lower(opPart);
        } else if (perModule.getOrDefault(String.join("/", mods), 0) == 1) {
            base = String.join("_", g);
        } else {
            base = String.join("_", g) + "_" + ProgramText.lower(opPart);
        }
        return n.getOutputCount() > 1 && k >= 0 ? base + "_" + k : base;
    }

    /**
     * An intermediate statement of node {@code n} (a step of an unrolled recurrence), named after the
     * node and {@code part}, in a group named after the node (and in its subgroup {@code sub} when not
     * null: one per time step); bound to no output.
     */
    Tensor step(OnnxMl.NodeProto n, String sub, String part, String expr, int[] shape) {
        String name = text.name(baseName(n, -1) + "_" + part);
        String[] parts = n.getName().split("/");
        String label = parts.length == 0 || parts[parts.length - 1].isEmpty() ? n.getOpType() : parts[parts.length - 1];
        List<String> g = new ArrayList<>(groups);
        g.add(label);
        if (sub != null) {
            g.add(sub);
        }
        text.add(g, name, expr, comment);
        return new Tensor(name, shape, false);
    }

    /** Binds output {@code k} of {@code n} to {@code expr} (shape and kind as given); returns the tensor. */
    Tensor emit(OnnxMl.NodeProto n, int k, String expr, int[] shape, boolean isInt) {
        String name = statementName(n, k);
        text.add(groups, name, expr, comment);
        Tensor t = new Tensor(name, shape, isInt);
        set(n, k, t);
        return t;
    }

    /** Output {@code k} of {@code n} is the tensor {@code t} itself (Identity, Dropout, a no-op reshape). */
    void alias(OnnxMl.NodeProto n, int k, Tensor t) {
        set(n, k, t);
    }

    /** The program tensor for input {@code i} of node {@code n}, declaring a leaf or computing a folded value as needed. */
    Tensor tensor(OnnxMl.NodeProto n, int i, LeafKind kind) {
        return tensor(n.getInput(i), kind);
    }

    Tensor tensor(String onnx, LeafKind kind) {
        Val v = values.get(onnx);
        if (v instanceof Tensor t) {
            return t;
        }
        Const c = ((Known) v).c();
        OnnxMl.NodeProto from = producer.get(onnx);
        if (!initializers.containsKey(onnx) && c.isFloat() && c.fromParams() && from != null) {
            // computed from parameters: write the computation, so the gradient reaches them
            translate(from, true);
            Val again = values.get(onnx);
            if (again instanceof Tensor t) {
                return t;
            }
            throw error("node '" + from.getName() + "' could not be written into the program");
        }
        boolean isInit = initializers.containsKey(onnx) && initializers.get(onnx) == c;
        Tensor t = declare(text.name(isInit ? leafBase(onnx) : constBase(onnx)), c, isInit && kind == LeafKind.PARAM,
                isInit ? NodeOrigin.initializerComment(onnx) : "constant '" + onnx + "'");
        if (isInit) {
            initializerNames.put(onnx, t.name());
        }
        values.put(onnx, t);
        return t;
    }

    /** A constant the import makes up (a zero bias, gathered indices) as a leaf read from a file. */
    Tensor constant(String base, Const c) {
        return declare(text.name(base), c, false, "");
    }

    /**
     * A leaf holding {@code c} from params/NAME.npy: {@code param} (a parameter), {@code input} (a float
     * constant) or {@code labels} (integers and booleans).
     */
    private Tensor declare(String name, Const c, boolean param, String what) {
        String file = fileName(name);
        String path = "file:" + paramsFolder + "/" + file + ".npy";
        String decl;
        if (!c.isFloat()) {
            int classes = 2;
            for (double d : c.data()) {
                if (d < 0) {
                    throw error("the integer constant " + what + " holds the negative value " + (long) d
                            + ", which a program's labels cannot hold");
                }
                classes = (int) Math.max(classes, d + 1);
            }
            decl = "labels(" + ProgramText.dimsText(c.shape(), true) + "classes=" + classes + ", init=\"" + path + "\")";
        } else {
            decl = (param ? "param(" : "input(") + ProgramText.dimsText(c.shape(), true) + "init=\"" + path + "\")";
        }
        text.add(groups, name, decl, what);
        files.put(file, c);
        return new Tensor(name, c.shape(), !c.isFloat());
    }

    /**
     * The parameter file's name (without .npy) for the program name {@code name}: the name itself, or,
     * past 100 characters, its first 80 and a hash (a file name over 255 bytes cannot be created).
     */
    private String fileName(String name) {
        if (name.length() <= 100) {
            return name;
        }
        String base = name.substring(0, 80) + "_" + String.format("%08x", name.hashCode());
        String f = base;
        for (int k = 1; files.containsKey(f); k++) {
            f = base + "_" + k;
        }
        return f;
    }

    private String leafBase(String onnx) {
        if (moduleNames.containsKey(onnx)) {
            return moduleNames.get(onnx);
        }
        if (onnx.startsWith("onnx::") && !groups.isEmpty()) {
            return String.join("_", groups) + "_" + ProgramText.lower(onnx.substring(6));
        }
        return onnx.startsWith("onnx::") ? ProgramText.lower(onnx.substring(6)) : onnx;
    }

    private static String constBase(String onnx) {
        String s = onnx.replaceFirst("^onnx::", "").replaceFirst("_output_\\d+$", "");
        int slash = s.lastIndexOf('/');
        return ProgramText.lower(slash >= 0 ? s.substring(slash + 1) : s);
    }

    /** The value of input {@code i} when it is known, else null (absent optional inputs too). */
    Const known(OnnxMl.NodeProto n, int i) {
        if (i >= n.getInputCount() || n.getInput(i).isEmpty()) {
            return null;
        }
        return values.get(n.getInput(i)) instanceof Known k ? k.c() : null;
    }

    /** Whether a node or the graph's outputs read the value {@code onnx}. */
    boolean isRead(String onnx) {
        for (OnnxMl.NodeProto n : graph.getNodeList()) {
            if (n.getInputList().contains(onnx)) {
                return true;
            }
        }
        return graph.getOutputList().stream().anyMatch(o -> o.getName().equals(onnx));
    }

    /** The value {@code onnx} stands for now (a program tensor, a known constant, or missing), or null. */
    Val valueOf(String onnx) {
        return values.get(onnx);
    }

    /** The shape of value {@code onnx}, or null when it is missing. */
    int[] shapeOf(String onnx) {
        Val v = values.get(onnx);
        return v instanceof Tensor t ? t.shape() : v instanceof Known k ? k.c().shape() : null;
    }

    boolean present(OnnxMl.NodeProto n, int i) {
        return i < n.getInputCount() && !n.getInput(i).isEmpty();
    }

    Val value(OnnxMl.NodeProto n, int i) {
        return present(n, i) ? values.get(n.getInput(i)) : null;
    }
}
