package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;
import io.gradscope.engine.tensor.Tensor;

/**
 * The error function from existing primitives (no kernel of its own, so every backend has it): W. J.
 * Cody's rational Chebyshev approximations ("Rational Chebyshev approximations for the error function",
 * Math. Comp. 23, 1969), the coefficients of his CALERF, in three ranges of |x| evaluated on clamped
 * inputs and selected by masks. Agrees with libm's erf to within 1e-15 relative error.
 */
final class Erf {
    private Erf() {
    }

    private static final double[] A = {3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
        3.20937758913846947e03, 1.85777706184603153e-1};
    private static final double[] B = {2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
        2.84423683343917062e03};
    private static final double[] C = {5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
        2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03,
        1.23033935479799725e03, 2.15311535474403846e-8};
    private static final double[] D = {1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
        1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03,
        1.23033935480374942e03};
    private static final double[] P = {3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
        1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2};
    private static final double[] Q = {2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
        6.05183413124413191e-2, 2.33520497626869185e-3};
    private static final double ONE_OVER_SQRT_PI = 5.6418958354775628695e-1;
    private static final double SMALL = 0.46875;
    private static final double LARGE = 4.0;

    /** 2/√π, the scale of erf's derivative {@code 2/√π · exp(−x²)}. */
    static final double TWO_OVER_SQRT_PI = 2 * ONE_OVER_SQRT_PI;

    private static Tensor add(Tensor a, double v) {
        return Raw.binary(BinaryKind.ADD, a, Raw.scalarLike(a, v));
    }

    private static Tensor mul(Tensor a, Tensor b) {
        return Raw.binary(BinaryKind.MUL, a, b);
    }

    private static Tensor div(Tensor a, Tensor b) {
        return Raw.binary(BinaryKind.DIV, a, b);
    }

    private static Tensor clamp(Tensor x, double lo, double hi) {
        Tensor above = Raw.binary(BinaryKind.MAX, x, Raw.scalarLike(x, lo));
        return free(Raw.binary(BinaryKind.MIN, above, Raw.scalarLike(x, hi)), above);
    }

    /**
     * Releases temporaries once read, returning {@code result}: the ~100 elementwise steps would
     * otherwise all be live together until the op ends, about 100 times erf's output at the peak
     * (most of an imported transformer's), where PyTorch's one kernel has none.
     */
    private static Tensor free(Tensor result, Tensor... done) {
        for (Tensor t : done) {
            t.storage().release();
        }
        return result;
    }

    /**
     * {@code (num(t) + p[last]) / (den(t) + q[last])} with Cody's Horner scheme: {@code num = p[n]·t},
     * {@code den = t}, then {@code (num + p[i])·t} and {@code (den + q[i])·t} for the middle
     * coefficients. {@code t} is the caller's; every other intermediate is released once used.
     */
    private static Tensor ratio(Tensor t, double[] p, double[] q, int steps) {
        Tensor num = Raw.mulScalar(t, p[p.length - 1]);
        Tensor den = t;
        for (int i = 0; i < steps; i++) {
            Tensor a = add(num, p[i]);
            num = free(mul(a, t), a, num);
            Tensor b = add(den, q[i]);
            Tensor next = mul(b, t);
            den = den == t ? free(next, b) : free(next, b, den);
        }
        Tensor n = free(add(num, p[steps]), num);
        Tensor d = den == t ? add(den, q[steps]) : free(add(den, q[steps]), den);
        return free(div(n, d), n, d);
    }

    /** exp(−v·v), v kept. */
    private static Tensor gauss(Tensor v) {
        Tensor sq = mul(v, v);
        Tensor neg = free(Raw.mulScalar(sq, -1), sq);
        return free(Raw.unary(UnaryKind.EXP, neg), neg);
    }

    static Tensor forward(Tensor x) {
        Tensor y = Raw.unary(UnaryKind.ABS, x);
        // |x| ≤ 0.46875: erf = x·R(x²)
        Tensor xs = clamp(x, -SMALL, SMALL);
        Tensor xs2 = mul(xs, xs);
        Tensor rs = free(ratio(xs2, A, B, 3), xs2);
        Tensor small = free(mul(xs, rs), xs, rs);
        // 0.46875 < |x| ≤ 4: erfc = exp(−x²)·R(|x|)
        Tensor ym = clamp(y, SMALL, LARGE);
        Tensor em = gauss(ym);
        Tensor rm = free(ratio(ym, C, D, 7), ym);
        Tensor mid = free(mul(em, rm), em, rm);
        // |x| > 4: erfc = exp(−x²)/|x|·(1/√π − R(1/x²)/x²); 0 at infinity
        Tensor yl = Raw.binary(BinaryKind.MAX, y, Raw.scalarLike(y, LARGE));
        Tensor yl2 = mul(yl, yl);
        Tensor inv = free(div(Raw.scalarLike(y, 1), yl2), yl2);
        Tensor rl = ratio(inv, P, Q, 4);
        Tensor ir = free(mul(inv, rl), inv, rl);
        Tensor tail = free(Raw.binary(BinaryKind.SUB, Raw.scalarLike(y, ONE_OVER_SQRT_PI), ir), ir);
        Tensor el = gauss(yl);
        Tensor over = free(div(tail, yl), tail, yl);
        Tensor large = free(mul(el, over), el, over);
        Tensor inSmall = Raw.binary(BinaryKind.GT, Raw.scalarLike(y, SMALL + Math.ulp(SMALL)), y);
        Tensor inLarge = free(Raw.binary(BinaryKind.GT, y, Raw.scalarLike(y, LARGE)), y);
        Tensor notSmall = Raw.binary(BinaryKind.SUB, Raw.scalarLike(x, 1), inSmall);
        Tensor inMid = Raw.binary(BinaryKind.SUB, notSmall, inLarge);
        Tensor midPart = free(mul(inMid, mid), inMid, mid);
        Tensor largePart = free(mul(inLarge, large), inLarge, large);
        Tensor erfc = free(Raw.binary(BinaryKind.ADD, midPart, largePart), midPart, largePart);
        // erf = sign(x)·((½ − erfc) + ½) outside the small range (Cody's order keeps the last bit).
        Tensor half = free(Raw.binary(BinaryKind.SUB, Raw.scalarLike(x, 0.5), erfc), erfc);
        Tensor mag = free(add(half, 0.5), half);
        Tensor sign = Raw.unary(UnaryKind.SIGN, x);
        Tensor outer = free(mul(sign, mag), sign, mag);
        Tensor smallPart = free(mul(inSmall, small), inSmall, small);
        Tensor outerPart = free(mul(notSmall, outer), notSmall, outer);
        return free(Raw.binary(BinaryKind.ADD, smallPart, outerPart), smallPart, outerPart);
    }
}
