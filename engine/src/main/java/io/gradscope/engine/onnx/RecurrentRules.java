package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * LSTM and GRU (as PyTorch exports nn.LSTM and nn.GRU: layout 0, the default activations, no
 * peepholes, every sequence of full length) unrolled over time into matmuls, sigmoids, tanhs and
 * slices, so their gradients come from the ops' own VJPs. The input projection of every step is one
 * matmul ({@code X @ Wᵀ + b}, [T, B, G·H]); each step adds {@code h @ Rᵀ} and applies the gates. A
 * direction's output is its steps' hidden states concatenated; bidirectional layers concatenate the
 * two directions along axis 1, as ONNX lays out Y [T, D, B, H].
 */
final class RecurrentRules {
    private final OpRules r;
    private final Translator t;

    RecurrentRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }

    /** LSTM (gates i, o, f, c) or GRU (gates z, r, h, linear_before_reset=1). */
    String recurrent(OnnxMl.NodeProto n, Attrs at, boolean lstm) {
        String op = n.getOpType();
        if (at.has("activations") || at.has("clip") || at.i("input_forget", 0) != 0 || at.i("layout", 0) != 0) {
            return op + " with activations, clip, input_forget or layout other than the defaults";
        }
        if (!lstm && at.i("linear_before_reset", 0) == 0) {
            return "GRU with linear_before_reset=0";
        }
        if (lstm && t.present(n, 7)) {
            return "LSTM with peepholes";
        }
        Tensor x = r.floatTensor(n, 0);
        if (x.rank() != 3) {
            return op + " of an input of rank " + x.rank();
        }
        int steps = x.shape()[0];
        int batch = x.shape()[1];
        int hidden = (int) at.i("hidden_size", 0);
        if (t.present(n, 4)) {
            Const lens = t.known(n, 4);
            if (lens == null || java.util.Arrays.stream(lens.data()).anyMatch(v -> v != steps)) {
                return op + " with sequence lengths shorter than the input";
            }
        }
        String direction = at.s("direction", "forward");
        int dirs = direction.equals("bidirectional") ? 2 : 1;
        int gates = lstm ? 4 : 3;
        Tensor w = r.floatTensor(n, 1);
        Tensor rw = r.floatTensor(n, 2);
        if (w.rank() != 3 || w.shape()[0] != dirs || w.shape()[1] != gates * hidden || rw.shape()[2] != hidden) {
            return op + " with weights of shape " + java.util.Arrays.toString(w.shape()) + " for hidden_size " + hidden;
        }
        Tensor b = t.present(n, 3) ? r.floatTensor(n, 3) : null;
        // every leaf declared before the first step: one declared later would split the node's group in two
        Tensor h0 = t.present(n, 5) ? t.tensor(n, 5, LeafKind.CONSTANT) : null;
        Tensor c0 = lstm && t.present(n, 6) ? t.tensor(n, 6, LeafKind.CONSTANT) : null;
        if (h0 == null || (lstm && c0 == null)) {
            int[] shape = {dirs, batch, hidden};
            Tensor zeros = t.constant("zero_state", Const.of(shape, new double[dirs * batch * hidden], Const.FLOAT));
            h0 = h0 == null ? zeros : h0;
            c0 = lstm && c0 == null ? zeros : c0;
        }
        List<String> ys = new ArrayList<>();
        List<String> lastH = new ArrayList<>();
        List<String> lastC = new ArrayList<>();
        int gh = gates * hidden;
        int[] bh = {batch, hidden};
        for (int d = 0; d < dirs; d++) {
            boolean reverse = direction.equals("reverse") || d == 1;
            String p = dirs == 2 ? "d" + d + "_" : "";
            String wd = pick(w.name(), d, dirs, new int[] {gh, x.shape()[2]});
            String rd = pick(rw.name(), d, dirs, new int[] {gh, hidden});
            String bd = b == null ? null : pick(b.name(), d, dirs, new int[] {2 * gh});
            String wb = bd == null ? null : "slice(" + bd + ", 0, 0, " + gh + ")";
            String rb = bd == null ? null : "slice(" + bd + ", 0, " + gh + ", " + 2 * gh + ")";
            // the input projection of every step at once; LSTM adds both biases here, GRU keeps Rb_h inside r ⊙ (...)
            String bias = wb == null ? "" : lstm ? " + " + wb + " + " + rb : " + " + wb;
            String h = state(n, h0, d, dirs, p + "h0", bh);
            String c = lstm ? state(n, c0, d, dirs, p + "c0", bh) : null;
            Tensor xw = t.step(n, null, p + "xw", x.name() + " @ transpose(" + wd + ")" + bias, new int[] {steps, batch, gh});
            String[] hs = new String[steps];
            for (int k = 0; k < steps; k++) {
                int s = reverse ? steps - 1 - k : k;
                String q = p + "t" + s + "_";
                String step = p + "t" + s;
                String xs = "reshape(slice(" + xw.name() + ", 0, " + s + ", " + (s + 1) + "), " + batch + ", " + gh + ")";
                Tensor hr = t.step(n, step, q + "hr", h + " @ transpose(" + rd + ")" + (rb == null || lstm ? "" : " + " + rb),
                        new int[] {batch, gh});
                if (lstm) {
                    Tensor g = t.step(n, step, q + "gates", xs + " + " + hr.name(), new int[] {batch, gh});
                    String i = "sigmoid(" + gate(g.name(), 0, hidden) + ")";
                    String o = t.step(n, step, q + "o", "sigmoid(" + gate(g.name(), 1, hidden) + ")", bh).name();
                    String f = "sigmoid(" + gate(g.name(), 2, hidden) + ")";
                    String cc = "tanh(" + gate(g.name(), 3, hidden) + ")";
                    c = t.step(n, step, q + "c", f + " * " + c + " + " + i + " * " + cc, bh).name();
                    h = t.step(n, step, q + "h", o + " * tanh(" + c + ")", bh).name();
                } else {
                    Tensor xv = t.step(n, step, q + "x", xs, new int[] {batch, gh});
                    String z = t.step(n, step, q + "z", "sigmoid(" + gate(xv.name(), 0, hidden) + " + " + gate(hr.name(), 0, hidden) + ")",
                            bh).name();
                    String rr = "sigmoid(" + gate(xv.name(), 1, hidden) + " + " + gate(hr.name(), 1, hidden) + ")";
                    String hh = t.step(n, step, q + "n", "tanh(" + gate(xv.name(), 2, hidden) + " + " + rr + " * " + gate(hr.name(), 2, hidden)
                            + ")", bh).name();
                    h = t.step(n, step, q + "h", "(1 - " + z + ") * " + hh + " + " + z + " * " + h, bh).name();
                }
                hs[s] = "reshape(" + h + ", 1, 1, " + batch + ", " + hidden + ")";
            }
            ys.add(steps == 1 ? hs[0] : "concat(" + String.join(", ", hs) + ", axis=0)");
            lastH.add("reshape(" + h + ", 1, " + batch + ", " + hidden + ")");
            if (lstm) {
                lastC.add("reshape(" + c + ", 1, " + batch + ", " + hidden + ")");
            }
        }
        emit(n, 0, ys, 1, new int[] {steps, dirs, batch, hidden});
        emit(n, 1, lastH, 0, new int[] {dirs, batch, hidden});
        if (lstm) {
            emit(n, 2, lastC, 0, new int[] {dirs, batch, hidden});
        }
        return null;
    }

    /** Direction {@code d} of a per-direction tensor, as a {@code shape} tensor. */
    private static String pick(String x, int d, int dirs, int[] shape) {
        String dims = ProgramText.dimsText(shape, false);
        return dirs == 1 ? "reshape(" + x + ", " + dims + ")" : "reshape(slice(" + x + ", 0, " + d + ", " + (d + 1) + "), " + dims + ")";
    }

    private static String gate(String x, int k, int hidden) {
        return "slice(" + x + ", 1, " + k * hidden + ", " + (k + 1) * hidden + ")";
    }

    /** Direction d of the initial hidden or cell state {@code s} [D, B, H]. */
    private String state(OnnxMl.NodeProto n, Tensor s, int d, int dirs, String part, int[] bh) {
        return t.step(n, null, part, pick(s.name(), d, dirs, bh), bh).name();
    }

    private void emit(OnnxMl.NodeProto n, int k, List<String> parts, int axis, int[] shape) {
        if (k < n.getOutputCount() && !n.getOutput(k).isEmpty()) {
            t.emit(n, k, parts.size() == 1 ? parts.get(0) : "concat(" + String.join(", ", parts) + ", axis=" + axis + ")", shape, false);
        }
    }
}
