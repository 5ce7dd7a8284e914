package io.gradscope.engine.diagnose;

import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.Tensor;

/**
 * What a NaN or infinity did to a run's results, in words: the objective, else the first leaf
 * whose gradient holds one ("the gradient of 's' holds 6 NaN"); null when they are all finite.
 * The command line and the app say it beside where the value was born.
 */
public final class NonFiniteEffect {
    private NonFiniteEffect() {
    }

    public static String of(ProgramRun run) {
        Health obj = Health.of(run.objective());
        if (!obj.finite()) {
            return "the objective is " + (obj.nan() > 0 ? "NaN" : obj.posInf() > 0 ? "+Inf" : "−Inf");
        }
        for (Leaf l : run.leaves()) {
            Tensor g = l.grad() ? run.gradient(l.name()) : null;
            Health h = Health.of(g);
            if (g != null && !h.finite()) {
                return "the gradient of '" + l.name() + "' holds " + h.badText();
            }
        }
        return null;
    }
}
