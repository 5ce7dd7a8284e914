package io.gradscope.engine.onnx;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The generated program's text: statements in order, each in the group of the PyTorch module its ONNX
 * node came from ({@code /layer1/layer1.0/conv1/Conv} is in groups layer1 → 0 → conv1), written as
 * nested {@code with group(...)} blocks, with the node's name as a comment. Also hands out names
 * that are valid, unique and not the language's own.
 */
final class ProgramText {
    private record Stmt(List<String> groups, String text, String comment) {
    }

    private final List<String> header = new ArrayList<>();
    private final List<Stmt> stmts = new ArrayList<>();
    private final Set<String> used = new HashSet<>();
    private static final Set<String> RESERVED = Set.of("False", "None", "True", "and", "as", "assert", "async", "await", "break",
            "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
            "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "input", "param",
            "labels", "group", "checkpoint");

    ProgramText(Set<String> functionNames) {
        used.addAll(RESERVED);
        used.addAll(functionNames);
    }

    void comment(String line) {
        header.add("# " + io.gradscope.engine.GradscopeException.oneLine(line));
    }

    /** A group's name as a string literal: a backslash, quote, line break or tab escaped, another control character '?'. */
    static String literal(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c < 32 || c == 127 ? '?' : c);
            }
        }
        return sb.append('"').toString();
    }

    /** A fresh identifier from {@code base}: invalid characters become '_', and a suffix keeps it unique. */
    String name(String base) {
        String s = base.replaceAll("[^A-Za-z0-9_]", "_").replaceAll("_+", "_").replaceAll("^_+|_+$", "");
        if (s.isEmpty()) {
            s = "t";
        }
        if (Character.isDigit(s.charAt(0))) {
            s = "t" + s;
        }
        // ONNX numbers repeated names from _1 (Relu, Relu_1, ...): a clash here takes _0, then _0_1, _0_2, ...
        String n = s;
        if (used.contains(n)) {
            n = s + "_0";
            for (int k = 1; used.contains(n); k++) {
                n = s + "_0_" + k;
            }
        }
        used.add(n);
        return n;
    }

    /** Lower case for names made from op types ({@code Relu_1 -> relu_1}). */
    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    void add(List<String> groups, String name, String expr, String comment) {
        stmts.add(new Stmt(List.copyOf(groups), name + " = " + expr, comment));
    }

    String render() {
        StringBuilder sb = new StringBuilder();
        header.forEach(h -> sb.append(h).append('\n'));
        List<String> open = new ArrayList<>();
        for (Stmt s : stmts) {
            int common = 0;
            while (common < open.size() && common < s.groups().size() && open.get(common).equals(s.groups().get(common))) {
                common++;
            }
            while (open.size() > common) {
                open.remove(open.size() - 1);
            }
            while (open.size() < s.groups().size()) {
                String g = s.groups().get(open.size());
                sb.append("    ".repeat(open.size())).append("with group(").append(literal(g)).append("):\n");
                open.add(g);
            }
            sb.append("    ".repeat(open.size())).append(s.text());
            if (s.comment() != null && !s.comment().isEmpty()) {
                sb.append("  # ").append(io.gradscope.engine.GradscopeException.oneLine(s.comment()));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The dimensions as call arguments: {@code 2, 3} (with a trailing {@code , } when {@code more} and non-empty). */
    static String dimsText(int[] shape, boolean more) {
        String s = java.util.Arrays.stream(shape).mapToObj(Integer::toString).collect(Collectors.joining(", "));
        return more && !s.isEmpty() ? s + ", " : s;
    }
}
