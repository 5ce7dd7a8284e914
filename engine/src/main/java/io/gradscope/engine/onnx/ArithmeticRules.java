package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.Translator.Known;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic ONNX operators: elementwise binaries (a scalar constant written as a literal), Pow, Sum,
 * MatMul, Gemm, Where and Clip.
 */
final class ArithmeticRules {
    private final OpRules r;
    private final Translator t;

    ArithmeticRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }


    /** Whether input i is written as a tensor (rather than a number literal) next to the other operand. */
    private boolean asTensor(OnnxMl.NodeProto n, int i, int otherRank) {
        Val v = t.value(n, i);
        if (v instanceof Tensor) {
            return true;
        }
        Const c = ((Known) v).c();
        boolean initializer = c.isFloat() && c.fromParams();
        return initializer || c.numel() != 1 || c.shape().length > otherRank || OpRules.number(c.data()[0]) == null;
    }

    String binary(OnnxMl.NodeProto n, String symbol) {
        Val a = t.value(n, 0);
        Val b = t.value(n, 1);
        int ra = a instanceof Tensor x ? x.rank() : ((Known) a).c().shape().length;
        int rb = b instanceof Tensor y ? y.rank() : ((Known) b).c().shape().length;
        boolean ta = asTensor(n, 0, rb);
        boolean tb = asTensor(n, 1, ra);
        if (!ta && !tb) {
            ta = true;
        }
        String left;
        String right;
        int[] sa;
        int[] sb;
        if (ta) {
            Tensor x = r.floatTensor(n, 0);
            left = x.name();
            sa = x.shape();
        } else {
            left = OpRules.number(((Known) a).c().data()[0]);
            sa = new int[0];
        }
        if (tb) {
            Tensor y = r.floatTensor(n, 1);
            right = y.name();
            sb = y.shape();
        } else {
            right = OpRules.number(((Known) b).c().data()[0]);
            sb = new int[0];
        }
        int[] shape;
        try {
            shape = Shapes.broadcast("'" + symbol + "'", sa, sb);
        } catch (GradscopeException e) {
            return n.getOpType() + " (" + e.getMessage() + ")";
        }
        t.emit(n, 0, left + " " + symbol + " " + right, shape, false);
        return null;
    }

    String pow(OnnxMl.NodeProto n) {
        Tensor x = r.floatTensor(n, 0);
        Const e = t.known(n, 1);
        if (e == null || e.numel() != 1 || OpRules.number(e.data()[0]) == null) {
            return "Pow with a tensor exponent";
        }
        t.emit(n, 0, x.name() + " ** " + OpRules.number(e.data()[0]), x.shape(), false);
        return null;
    }

    String sum(OnnxMl.NodeProto n) {
        List<String> parts = new ArrayList<>();
        int[] shape = new int[0];
        for (int i = 0; i < n.getInputCount(); i++) {
            Tensor x = r.floatTensor(n, i);
            parts.add(x.name());
            shape = Shapes.broadcast("Sum", shape, x.shape());
        }
        t.emit(n, 0, String.join(" + ", parts), shape, false);
        return null;
    }

    /**
     * MatMul. A stack of rows times a matrix (a linear layer on [B, T, D]) is written as one matrix
     * product on the rows flattened, {@code reshape(reshape(x, B·T, D) @ W, B, T, N)}: the same values
     * and gradients, but one GEMM forward and one per gradient (the system's BLAS where it is used)
     * instead of B products and a sum over them for W's gradient.
     */
    String matmul(OnnxMl.NodeProto n) {
        Tensor a = r.floatTensor(n, 0);
        Tensor b = r.floatTensor(n, 1);
        int[] shape = r.shape(n, "matmul", Map.of(), a, b);
        if (a.rank() > 2 && b.rank() == 2) {
            int[] as = a.shape();
            int rows = 1;
            for (int i = 0; i < as.length - 1; i++) {
                rows *= as[i];
            }
            t.emit(n, 0, "reshape(reshape(" + a.name() + ", " + rows + ", " + as[as.length - 1] + ") @ " + b.name() + ", "
                    + ProgramText.dimsText(shape, false) + ")", shape, false);
            return null;
        }
        t.emit(n, 0, a.name() + " @ " + b.name(), shape, false);
        return null;
    }

    String gemm(OnnxMl.NodeProto n, Attrs at) {
        Tensor a = r.floatTensor(n, 0);
        Tensor b = r.floatTensor(n, 1);
        if (a.rank() != 2 || b.rank() != 2) {
            return "Gemm of tensors that are not matrices";
        }
        String left = at.i("transA", 0) != 0 ? "transpose(" + a.name() + ")" : a.name();
        String right = at.i("transB", 0) != 0 ? "transpose(" + b.name() + ")" : b.name();
        int m = at.i("transA", 0) != 0 ? a.shape()[1] : a.shape()[0];
        int k = at.i("transA", 0) != 0 ? a.shape()[0] : a.shape()[1];
        int kb = at.i("transB", 0) != 0 ? b.shape()[1] : b.shape()[0];
        int nn = at.i("transB", 0) != 0 ? b.shape()[0] : b.shape()[1];
        if (k != kb) {
            return "Gemm (inner dimensions " + k + " and " + kb + " differ)";
        }
        double alpha = OpRules.floatAttr(at.f("alpha", 1));
        double beta = OpRules.floatAttr(at.f("beta", 1));
        String expr = left + " @ " + right + (alpha != 1 ? " * " + OpRules.number(alpha) : "");
        int[] shape = {m, nn};
        if (t.present(n, 2) && beta != 0) {
            Tensor c = r.floatTensor(n, 2);
            expr += " + " + c.name() + (beta != 1 ? " * " + OpRules.number(beta) : "");
            shape = Shapes.broadcast("Gemm", shape, c.shape());
        }
        t.emit(n, 0, expr, shape, false);
        return null;
    }


    String where(OnnxMl.NodeProto n) {
        if (t.known(n, 0) == null) {
            return "Where with a computed condition";
        }
        Tensor c = t.tensor(n, 0, LeafKind.CONSTANT);
        Tensor a = r.floatTensor(n, 1);
        Tensor b = r.floatTensor(n, 2);
        int[] shape = r.shape(n, "where", Map.of(), c, a, b);
        t.emit(n, 0, "where(" + c.name() + ", " + a.name() + ", " + b.name() + ")", shape, false);
        return null;
    }


    String clip(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        Double lo = at.has("min") ? (Double) OpRules.floatAttr(at.f("min", 0)) : null;
        Double hi = at.has("max") ? (Double) OpRules.floatAttr(at.f("max", 0)) : null;
        if (t.present(n, 1)) {
            Const c = t.known(n, 1);
            lo = c == null ? null : c.data()[0];
        }
        if (t.present(n, 2)) {
            Const c = t.known(n, 2);
            hi = c == null ? null : c.data()[0];
        }
        if (lo != null && hi == null && lo == 0) {
            t.emit(n, 0, "relu(" + x.name() + ")", x.shape(), false);
            return null;
        }
        if (lo == null || hi == null || OpRules.number(lo) == null || OpRules.number(hi) == null) {
            return "Clip without both bounds known";
        }
        t.emit(n, 0, "hardtanh(" + x.name() + ", min_val=" + OpRules.number(lo) + ", max_val=" + OpRules.number(hi) + ")", x.shape(), false);
        return null;
    }
}
