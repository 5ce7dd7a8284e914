package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.List;

/**
 * An einsum equation with every axis named by a letter of its own: "..." spelled out in fresh letters (one
 * per broadcast axis, aligned on the right as torch.einsum does; an operand's axis of 1 against a longer one
 * gets a letter only it has, summed away), and a letter repeated within an operand renamed, the pair kept
 * in {@code pairs}: the einsum takes only the elements where the two agree (a diagonal), as if multiplied by
 * an identity over them. {@code pairs} holds the two letters of each such pair, first then renamed.
 */
record EinsumSubscripts(List<String> in, String out, List<char[]> pairs) {

    /** The operands' subscripts as written ("..." kept), checked. */
    static List<String> operands(String equation) {
        String eq = equation.replace(" ", "");
        String lhs = eq.contains("->") ? eq.substring(0, eq.indexOf("->")) : eq;
        List<String> in = List.of(lhs.split(",", -1));
        for (String s : in) {
            check(s, "an operand's");
        }
        return in;
    }

    private static void check(String s, String what) {
        String rest = s.replaceFirst("\\.\\.\\.", "");
        for (char c : rest.toCharArray()) {
            if (!Character.isLetter(c)) {
                throw new GradscopeException("einsum: " + what + " subscripts take letters and one \"...\", not '" + c + "' in \"" + s + "\"");
            }
        }
    }

    /** Whether the operands' axes depend on their shapes ("..." in the equation). */
    static boolean needsShapes(String equation) {
        return equation.contains(".");
    }

    /** The equation resolved for operands of these shapes (null shapes where it has no "..."). */
    static EinsumSubscripts of(String equation, int[][] shapes) {
        String eq = equation.replace(" ", "");
        List<String> written = operands(eq);
        boolean arrow = eq.contains("->");
        String outWritten = arrow ? eq.substring(eq.indexOf("->") + 2) : null;
        if (outWritten != null) {
            check(outWritten, "the output's");
        }
        if (shapes != null && shapes.length != written.size()) {
            throw new GradscopeException("einsum: \"" + equation + "\" names " + written.size() + " operands, not " + shapes.length);
        }
        Fresh fresh = new Fresh(eq);
        // "...": the broadcast axes, right-aligned, each a fresh letter
        int e = 0;
        int[] dots = new int[written.size()];
        for (int i = 0; i < written.size(); i++) {
            String s = written.get(i);
            if (s.contains("...")) {
                dots[i] = shapes[i].length - (s.length() - 3);
                if (dots[i] < 0) {
                    throw new GradscopeException("einsum: operand " + i + " of shape " + Shapes.str(shapes[i]) + " has fewer axes than the letters of \""
                            + s + "\"");
                }
                e = Math.max(e, dots[i]);
            }
        }
        int[] broadcast = new int[e];
        java.util.Arrays.fill(broadcast, 1);
        for (int i = 0; i < written.size(); i++) {
            int at = written.get(i).indexOf("...");
            for (int k = 0; at >= 0 && k < dots[i]; k++) {
                int n = shapes[i][at + k];
                int q = e - dots[i] + k;
                if (n != 1 && broadcast[q] != 1 && broadcast[q] != n) {
                    throw new GradscopeException("einsum: the \"...\" axes of the operands do not broadcast: " + broadcast[q] + " against " + n);
                }
                broadcast[q] = Math.max(broadcast[q], n);
            }
        }
        StringBuilder ell = new StringBuilder();
        for (int q = 0; q < e; q++) {
            ell.append(fresh.next());
        }
        List<String> in = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            String s = written.get(i);
            int at = s.indexOf("...");
            if (at >= 0) {
                StringBuilder mine = new StringBuilder();
                for (int k = 0; k < dots[i]; k++) {
                    int q = e - dots[i] + k;
                    // an axis of 1 against a longer one: a letter of its own, summed away
                    mine.append(shapes[i][at + k] == 1 && broadcast[q] != 1 ? fresh.next() : ell.charAt(q));
                }
                s = s.substring(0, at) + mine + s.substring(at + 3);
            }
            in.add(s);
        }
        String out;
        if (arrow) {
            out = outWritten.replace("...", ell);
        } else {
            // implicit: the "..." axes, then the letters written once, in alphabetical order
            String letters = String.join("", written).replace("...", "");
            StringBuilder b = new StringBuilder(ell);
            letters.chars().distinct().sorted().filter(c -> letters.chars().filter(d -> d == c).count() == 1).forEach(c -> b.append((char) c));
            out = b.toString();
        }
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            if (out.indexOf(c) != i) {
                throw new GradscopeException("einsum: letter '" + c + "' appears twice in the output's subscripts \"" + out + "\"");
            }
            if (in.stream().noneMatch(s -> s.indexOf(c) >= 0)) {
                throw new GradscopeException("einsum: output letter '" + c + "' appears in no operand of \"" + equation + "\"");
            }
        }
        // a letter twice in an operand: the second renamed, the pair kept (a diagonal)
        List<char[]> pairs = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            StringBuilder s = new StringBuilder(in.get(i));
            for (int a = 0; a < s.length(); a++) {
                char c = s.charAt(a);
                int first = s.indexOf(String.valueOf(c));
                if (first != a) {
                    char f = fresh.next();
                    s.setCharAt(a, f);
                    pairs.add(new char[] {c, f});
                }
            }
            in.set(i, s.toString());
        }
        return new EinsumSubscripts(List.copyOf(in), out, List.copyOf(pairs));
    }

    /** Letters the equation does not use. */
    private static final class Fresh {
        private final String used;
        private char next = 'A';

        Fresh(String used) {
            this.used = used;
        }

        char next() {
            while (!Character.isLetter(next) || used.indexOf(next) >= 0) {
                next++;
            }
            return next++;
        }
    }
}
