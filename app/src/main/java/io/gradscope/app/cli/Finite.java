package io.gradscope.app.cli;

import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.diagnose.Health;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;

/** How {@code run} reports a NaN or infinity: one line, and with --check-finite where it was born. */
final class Finite {
    private Finite() {
    }

    /**
     * Prints the finding (if any) and returns the exit status: 3 when checking and something not
     * finite did harm; an infinity the program absorbs (a −Inf mask) is a note, status 0.
     */
    static int report(Path program, ProgramRun run, boolean check) {
        if (check) {
            FiniteOrigin.Report r = FiniteOrigin.find(run.trace());
            if (!r.anyBad()) {
                return 0;
            }
            FiniteOrigin.Finding f = r.origin();
            String at = program + ":" + f.source().line() + ":" + f.source().column();
            if (r.absorbed()) {
                System.err.println(at + ": note: an infinity born in the value of '" + f.title() + "' is absorbed (the objective "
                        + "and every gradient are finite, as with a −Inf mask before a softmax): " + f.why());
                return 0;
            }
            String what = f.phase() == FiniteOrigin.Phase.FORWARD
                    ? "the first NaN or infinity was born in the value of '" + f.title() + "'"
                    : "the first NaN or infinity was born in the gradient that '" + f.title() + "' sends back (its value is finite)";
            String harm = io.gradscope.engine.diagnose.NonFiniteEffect.of(run);
            System.err.println(at + ": warning: " + what + ": " + f.why()
                    + (harm != null ? "; " + harm : "; the objective and the leaves' gradients are finite"));
            return 3;
        }
        String bad = io.gradscope.engine.diagnose.NonFiniteEffect.of(run);
        if (bad != null) {
            System.err.println(program + ": warning: " + bad + "; run with --check-finite to find where it was born");
        }
        return 0;
    }

    /**
     * After a JVP: the first named value (in program order) whose tangent is not finite, as a
     * positioned warning, saying whether its value was finite (born in the tangent) or not.
     */
    static void tangents(Path program, java.util.Map<String, io.gradscope.engine.lang.Pos> names,
                         io.gradscope.engine.run.Directional.JvpResult r) {
        for (var e : names.entrySet()) {
            Tensor t = r.tangents().get(e.getKey());
            Health h = Health.of(t);
            if (t == null || h.finite()) {
                continue;
            }
            boolean valueFinite = Health.of(r.values().get(e.getKey())).finite();
            System.err.println(program + ":" + e.getValue().line() + ":" + e.getValue().column() + ": warning: the tangent of '"
                    + e.getKey() + "' holds " + h.badText() + (valueFinite ? " (its value is finite)" : " (so does its value)")
                    + "; the directional derivative is " + (Health.of(r.jvp()).finite() ? "finite" : "not finite"));
            return;
        }
    }
}
