package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * 500 generated programs: every gradient matches central differences in float64, and a mutated
 * version of each (a leaf's shape changed) either runs or fails with a clear ProgramException.
 * A failure prints the program, to be kept as a test.
 */
class RandomProgramTest {
    static final int PROGRAMS = 500;

    @Test
    void gradientsMatchCentralDifferences() {
        for (long seed = 0; seed < PROGRAMS; seed++) {
            String src = ProgramGenerator.generate(seed);
            try {
                checkGradients(src);
            } catch (AssertionError | RuntimeException e) {
                fail("program " + seed + " failed: " + e.getMessage() + "\n--- program ---\n" + src, e);
            }
        }
    }

    @Test
    void theGeneratorCoversEveryFamily() {
        String[] families = {" @ ", "sum(", "mean(", "amax(", "logsumexp(", "softmax(", "transpose(", "permute(", "reshape(",
            "slice(", "concat(", "broadcast_to(", "layer_norm(", "rms_norm(", "attention(", "causal=True", " ** ", "with group",
            "with checkpoint", "input("};
        Map<String, Integer> seen = new HashMap<>();
        for (long seed = 0; seed < PROGRAMS; seed++) {
            String src = ProgramGenerator.generate(seed);
            for (String f : families) {
                if (src.contains(f)) {
                    seen.merge(f, 1, Integer::sum);
                }
            }
        }
        for (String f : families) {
            assertTrue(seen.getOrDefault(f, 0) >= 10, "'" + f + "' appears in only " + seen.getOrDefault(f, 0) + " programs");
        }
    }

    private static void checkGradients(String src) {
        Program p = Program.parse("gen.grad", src);
        ProgramRun run = p.run(new RunOptions(DType.FLOAT64, 3, Map.of()));
        Map<String, Tensor> fixed = new HashMap<>();
        for (Leaf l : run.leaves()) {
            fixed.put(l.name(), run.values().get(l.name()));
        }
        for (Leaf l : run.leaves()) {
            if (!l.grad()) {
                continue;
            }
            double[] analytic = run.gradient(l.name()).toDoubleArray();
            double[] base = run.values().get(l.name()).toDoubleArray();
            for (int j = 0; j < base.length; j++) {
                double[] d = base.clone();
                d[j] = base[j] + GradCheck.EPS;
                Map<String, Tensor> in = new HashMap<>(fixed);
                in.put(l.name(), Tensor.of(d, l.shape()));
                double plus = p.forward(new RunOptions(DType.FLOAT64, 3, in)).item();
                d[j] = base[j] - GradCheck.EPS;
                in.put(l.name(), Tensor.of(d, l.shape()));
                double minus = p.forward(new RunOptions(DType.FLOAT64, 3, in)).item();
                double numeric = (plus - minus) / (2 * GradCheck.EPS);
                double err = Math.abs(numeric - analytic[j]);
                assertTrue(err <= GradCheck.ATOL + GradCheck.RTOL * Math.abs(numeric),
                        l.name() + "[" + j + "]: analytic " + analytic[j] + ", numeric " + numeric);
            }
        }
    }

    @Test
    void mutatedProgramsRunOrFailWithAClearError() {
        int errors = 0;
        for (long seed = 0; seed < PROGRAMS; seed++) {
            String src = mutate(ProgramGenerator.generate(seed), new Random(seed));
            try {
                Program.parse("gen.grad", src).run(new RunOptions(DType.FLOAT32, 0, Map.of()));
            } catch (ProgramException e) {
                errors++;
                assertTrue(e.getMessage().startsWith("gen.grad:") && !e.getMessage().contains("\n"), e.getMessage());
            } catch (GradscopeException e) {
                fail("an error without a position escaped for program " + seed + ": " + e.getMessage() + "\n" + src);
            } catch (RuntimeException | StackOverflowError e) {
                fail("program " + seed + " crashed the interpreter: " + e + "\n" + src, e);
            }
        }
        assertTrue(errors > PROGRAMS / 10, "mutations should break many programs, broke " + errors);
    }

    /** Changes one dimension of one param declaration, or swaps two characters. */
    private static String mutate(String src, Random r) {
        String[] lines = src.split("\n");
        int i = r.nextInt(lines.length);
        String line = lines[i];
        if (line.contains("param(") && r.nextBoolean()) {
            lines[i] = line.replaceFirst("\\((\\d)", "(" + (2 + r.nextInt(5)));
        } else if (line.length() > 6) {
            int k = 4 + r.nextInt(line.length() - 5);
            char[] c = line.toCharArray();
            char t = c[k];
            c[k] = c[k + 1];
            c[k + 1] = t;
            lines[i] = new String(c);
        }
        return String.join("\n", lines) + "\n";
    }
}
