package io.gradscope.engine.device.cpu;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The double kernels that are their float ones with the type changed: each is written from its
 * float twin (float → double, Float → Double, FloatVector → DoubleVector, 1f → 1.0, and a twin's
 * own replacements such as its species), so a fix is made once, in the float method.
 * {@link TwinsTest} fails when a double twin differs from what this writes, and rewrites them when
 * run with {@code -Dgradscope.regenerate=true}. Each twin has the line {@link #MARK} above it.
 */
final class Twins {
    private Twins() {
    }

    static final String MARK = "// GENERATED double twin (Twins, engine tests): edit the float method above, not this one";

    /**
     * A float method and its double twin in one file.
     *
     * @param floatStart the float method's declaration, up to its first parameter's type
     * @param doubleStart the double twin's, likewise
     * @param replacements further (from, to) pairs, applied after the type change
     */
    record Twin(String file, String floatStart, String doubleStart, List<String[]> replacements) {
    }

    static List<Twin> twins() {
        return List.of(
                new Twin("PoolKernels.java", "private static void maxPlane(float[]", "private static void maxPlane(double[]", List.of()),
                new Twin("PoolKernels.java", "static void update(float[]", "static void update(double[]", List.of()),
                new Twin("VectorPool.java", "static void update(float[]", "static void update(double[]",
                        List.<String[]>of(new String[] {"(F, ", "(D, "}, new String[] {"F.loopBound", "D.loopBound"},
                                new String[] {"F.length()", "D.length()"})),
                new Twin("Im2colKernels.java", "private static void unfoldPlane(float[]", "private static void unfoldPlane(double[]", List.of()),
                new Twin("Im2colKernels.java", "private static void foldPlane(float[]", "private static void foldPlane(double[]", List.of()),
                new Twin("CpuMatmul.java", "static void gemmF(float[]", "static void gemmD(double[]",
                        List.<String[]>of(new String[] {"static void gemmF(", "static void gemmD("})));
    }

    /** The float method's text turned double: its types, boxed names, vectors and float literals. */
    static String doubled(String floatMethod, Twin t) {
        String s = floatMethod.replaceAll("\\bfloat\\b", "double").replace("Float.", "Double.")
                .replace("FloatVector", "DoubleVector").replace("VectorMask<Float>", "VectorMask<Double>");
        s = replaceLiterals(s);
        for (String[] r : t.replacements()) {
            s = s.replace(r[0], r[1]);
        }
        return s;
    }

    private static String replaceLiterals(String s) {
        Matcher m = Pattern.compile("(?<![\\w.])(\\d+)(\\.\\d+)?([eE][-+]?\\d+)?f\\b").matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String exponent = m.group(3) != null ? m.group(3) : "";
            String point = m.group(2) != null ? m.group(2) : exponent.isEmpty() ? ".0" : "";
            m.appendReplacement(out, m.group(1) + point + exponent);
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The file's text with the twin's double method (and its mark) written from the float one. */
    static String replaced(String text, Twin t) {
        int[] f = method(text, t.floatStart());
        int[] d = method(text, t.doubleStart());
        String made = doubled(text.substring(f[0], f[1]), t);
        int lineBefore = text.lastIndexOf('\n', d[0] - 2) + 1;
        boolean marked = text.substring(lineBefore, d[0]).strip().equals(MARK);
        int from = marked ? lineBefore : d[0];
        return text.substring(0, from) + "    " + MARK + "\n" + made + text.substring(d[1]);
    }

    /** Where the method declared by {@code start} lies: from its line's start to its closing brace, inclusive. */
    static int[] method(String text, String start) {
        int at = text.indexOf(start);
        if (at < 0 || text.indexOf(start, at + 1) >= 0) {
            throw new IllegalStateException("not exactly one method starts with " + start);
        }
        int begin = text.lastIndexOf('\n', at) + 1;
        int depth = 0;
        for (int i = text.indexOf('{', at); i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return new int[] {begin, i + 1};
            }
        }
        throw new IllegalStateException("no end of " + start);
    }
}
