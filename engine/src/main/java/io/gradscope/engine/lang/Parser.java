package io.gradscope.engine.lang;

import io.gradscope.engine.lang.Ast.Expr;
import io.gradscope.engine.lang.Ast.Stmt;
import io.gradscope.engine.lang.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recursive descent with Python's precedence: {@code + -} below {@code * / @} below unary
 * {@code - +} below {@code **} (right-associative). Nesting is bounded so that deep input is an
 * error, never a StackOverflowError.
 */
public final class Parser {
    /**
     * The calls that give several values, bound only by unpacking ({@code a, b = chunk(x, 2)}),
     * not reserved as names: an imported model may name a value "split".
     */
    public static final Set<String> SEVERAL = Set.of("split", "chunk");

    /** Deepest expression nesting accepted (Python's own parser stops near 200). */
    public static final int MAX_DEPTH = 200;

    /** Longest run of + - or * / @ operators in one expression (evaluation recurses along it). */
    static final int MAX_CHAIN = 1000;

    /** Deepest nesting of with-blocks accepted (running them recurses; Python stops at 20). */
    public static final int MAX_BLOCKS = 100;

    private static final Set<String> RESERVED = Set.of("True", "False", "None");

    private static final Set<String> KEYWORDS_OUTSIDE = Set.of("for", "while", "if", "elif", "else", "def", "class",
            "return", "lambda", "import", "from", "try", "except", "finally", "raise", "yield", "global", "nonlocal",
            "del", "pass", "break", "continue", "assert", "async", "await", "and", "or", "not", "in", "is");
    private static final Map<String, String> UNSUPPORTED_OPS = Map.ofEntries(
            Map.entry("%", "'%' is not supported"), Map.entry("//", "'//' is not supported; use '/'"),
            Map.entry("<", "comparisons are not supported"), Map.entry(">", "comparisons are not supported"),
            Map.entry("<=", "comparisons are not supported"), Map.entry(">=", "comparisons are not supported"),
            Map.entry("==", "comparisons are not supported"), Map.entry("!=", "comparisons are not supported"),
            Map.entry("&", "'&' is not supported"), Map.entry("|", "'|' is not supported"),
            Map.entry("^", "'^' is not supported"), Map.entry("~", "'~' is not supported"),
            Map.entry("<<", "shifts are not supported"), Map.entry(">>", "shifts are not supported"),
            Map.entry("[", "subscripts are not supported; use slice(x, axis, start, stop)"),
            Map.entry(".", "attribute access is not supported; call a function instead (e.g. transpose(x))"),
            Map.entry(";", "';' is not supported; put one statement on each line"));

    private final String file;
    private final List<Token> toks;
    private int p;
    private int depth;
    private int blocks;

    private Parser(String file, List<Token> toks) {
        this.file = file;
        this.toks = toks;
    }

    public static List<Stmt> parse(String file, String source) {
        Parser ps = new Parser(file, Lexer.tokens(file, source));
        List<Stmt> out = new ArrayList<>();
        while (ps.peek().kind() != Kind.EOF) {
            out.add(ps.statement());
        }
        return out;
    }

    private Token peek() {
        return toks.get(p);
    }

    private Token next() {
        return toks.get(p++);
    }

    private ProgramException error(Pos pos, String what) {
        return new ProgramException(file, pos, what);
    }

    private ProgramException unexpected(Token t, String expected) {
        if (t.kind() == Kind.OP && UNSUPPORTED_OPS.containsKey(t.text())) {
            return error(t.pos(), UNSUPPORTED_OPS.get(t.text()));
        }
        if (t.kind() == Kind.OP && t.text().endsWith("=") && t.text().length() > 1 && !t.text().equals("==")) {
            return error(t.pos(), "augmented assignment '" + t.text() + "' is not supported; names are bound once");
        }
        if (t.kind() == Kind.INDENT) {
            return error(t.pos(), "unexpected indentation");
        }
        return error(t.pos(), "expected " + expected + ", found " + t.describe());
    }

    private Token expectOp(String op, String expected) {
        Token t = next();
        if (!(t.kind() == Kind.OP && t.text().equals(op))) {
            throw unexpected(t, expected);
        }
        return t;
    }

    private void endOfStatement() {
        Token t = next();
        if (t.kind() != Kind.NEWLINE) {
            throw unexpected(t, "the end of the statement");
        }
    }

    private Stmt statement() {
        Token t = peek();
        if (t.kind() == Kind.NAME && t.text().equals("with")) {
            return with();
        }
        if (t.kind() == Kind.NAME && KEYWORDS_OUTSIDE.contains(t.text())) {
            throw error(t.pos(), "'" + t.text() + "' is not part of the .grad language: a program is assignments "
                    + "(name = expression) and 'with group(...)' or 'with checkpoint()' blocks");
        }
        if (t.kind() == Kind.NAME && toks.get(p + 1).is(",")) {
            return unpack();
        }
        if (t.kind() == Kind.NAME && toks.get(p + 1).is("=")) {
            if (RESERVED.contains(t.text())) {
                throw error(t.pos(), "'" + t.text() + "' is a reserved word and cannot be assigned to; choose another name");
            }
            next();
            next();
            Expr value = expression();
            endOfStatement();
            return new Ast.Assign(t.pos(), t.text(), value);
        }
        if (t.kind() == Kind.INDENT) {
            throw error(t.pos(), "unexpected indentation");
        }
        Expr e = expression();
        Token after = peek();
        if (after.kind() == Kind.OP && after.text().equals("=")) {
            throw error(e.pos(), "only a plain name can be assigned to");
        }
        endOfStatement();
        return new Ast.ExprStmt(t.pos(), e);
    }

    /** {@code a, b, c = split(...)} or {@code = chunk(...)}: names, commas (a trailing one too), '=', the call. */
    private Stmt unpack() {
        List<Ast.Name> names = new ArrayList<>();
        while (true) {
            Token n = next();
            if (n.kind() != Kind.NAME || KEYWORDS_OUTSIDE.contains(n.text()) || n.text().equals("with")) {
                throw unexpected(n, "a name on the left of '='");
            }
            if (RESERVED.contains(n.text())) {
                throw error(n.pos(), "'" + n.text() + "' is a reserved word and cannot be assigned to; choose another name");
            }
            for (Ast.Name m : names) {
                if (m.id().equals(n.text())) {
                    throw error(n.pos(), "'" + n.text() + "' appears twice on the left; each name is bound once");
                }
            }
            names.add(new Ast.Name(n.pos(), n.text()));
            if (peek().is("=")) {
                break;
            }
            expectOp(",", "',' or '=' after the names on the left");
            if (peek().is("=")) {
                break;
            }
        }
        next();
        Expr value = expression();
        if (!(value instanceof Ast.Call c && SEVERAL.contains(c.function()))) {
            throw error(value.pos(), "only split(...) and chunk(...) give several values; bind one name per statement otherwise");
        }
        endOfStatement();
        return new Ast.Unpack(names.get(0).pos(), List.copyOf(names), (Ast.Call) value);
    }

    private Stmt with() {
        Token w = next();
        if (++blocks > MAX_BLOCKS) {
            throw error(w.pos(), "'with' blocks nested too deeply (more than " + MAX_BLOCKS + " levels)");
        }
        try {
            return withBody(w);
        } finally {
            blocks--;
        }
    }

    private Stmt withBody(Token w) {
        Expr ctx = expression();
        if (!(ctx instanceof Ast.Call call)) {
            throw error(ctx.pos(), "'with' takes group(\"name\") or checkpoint()");
        }
        if (peek().is("as")) {
            throw error(peek().pos(), "'with ... as' is not supported");
        }
        expectOp(":", "':' after the with-statement");
        Token nl = next();
        if (nl.kind() != Kind.NEWLINE) {
            throw error(nl.pos(), "the body of a 'with' block goes on the following lines, indented");
        }
        Token ind = next();
        if (ind.kind() != Kind.INDENT) {
            throw error(ind.pos(), "expected an indented block after 'with'");
        }
        List<Stmt> body = new ArrayList<>();
        while (peek().kind() != Kind.DEDENT && peek().kind() != Kind.EOF) {
            body.add(statement());
        }
        next();
        return new Ast.With(w.pos(), call, body);
    }

    private Expr expression() {
        if (++depth > MAX_DEPTH) {
            throw error(peek().pos(), "expression nested too deeply (more than " + MAX_DEPTH + " levels)");
        }
        try {
            if (peek().is("lambda")) {
                throw error(peek().pos(), "'lambda' is not part of the .grad language");
            }
            Expr e = additive();
            Token t = peek();
            if (t.kind() == Kind.NAME && KEYWORDS_OUTSIDE.contains(t.text())) {
                throw error(t.pos(), "'" + t.text() + "' is not part of the .grad language");
            }
            return e;
        } finally {
            depth--;
        }
    }

    private Expr additive() {
        Expr e = multiplicative();
        int chain = 0;
        while (peek().is("+") || peek().is("-")) {
            Token op = next();
            e = new Ast.Binary(op.pos(), op.text(), e, multiplicative());
            if (++chain + depth > MAX_CHAIN) {
                throw error(op.pos(), "expression too long (more than " + MAX_CHAIN + " operators in a row)");
            }
        }
        return e;
    }

    private Expr multiplicative() {
        Expr e = unary();
        int chain = 0;
        while (peek().is("*") || peek().is("/") || peek().is("@")) {
            Token op = next();
            e = new Ast.Binary(op.pos(), op.text(), e, unary());
            if (++chain + depth > MAX_CHAIN) {
                throw error(op.pos(), "expression too long (more than " + MAX_CHAIN + " operators in a row)");
            }
        }
        return e;
    }

    private Expr unary() {
        if (peek().is("-") || peek().is("+")) {
            Token op = next();
            if (++depth > MAX_DEPTH) {
                throw error(op.pos(), "expression nested too deeply (more than " + MAX_DEPTH + " levels)");
            }
            try {
                return new Ast.Unary(op.pos(), op.text(), unary());
            } finally {
                depth--;
            }
        }
        return power();
    }

    private Expr power() {
        Expr base = primary();
        if (peek().is("**")) {
            Token op = next();
            if (++depth > MAX_DEPTH) {
                throw error(op.pos(), "expression nested too deeply (more than " + MAX_DEPTH + " levels)");
            }
            try {
                return new Ast.Binary(op.pos(), "**", base, unary());
            } finally {
                depth--;
            }
        }
        return base;
    }

    private Expr primary() {
        Expr e = atom();
        Token t = peek();
        if (t.is("(")) {
            if (!(e instanceof Ast.Name n)) {
                throw error(t.pos(), "only a function name can be called");
            }
            return call(n);
        }
        if (t.is("[") || t.is(".")) {
            throw unexpected(t, "an operator");
        }
        return e;
    }

    private Ast.Call call(Ast.Name fn) {
        expectOp("(", "'('");
        List<Expr> args = new ArrayList<>();
        List<Ast.Keyword> kws = new ArrayList<>();
        while (!peek().is(")")) {
            Token t = peek();
            if (t.kind() == Kind.NAME && toks.get(p + 1).is("=") && !toks.get(p + 1).is("==")) {
                next();
                next();
                for (Ast.Keyword k : kws) {
                    if (k.name().equals(t.text())) {
                        throw error(t.pos(), "keyword argument '" + t.text() + "' is given twice");
                    }
                }
                kws.add(new Ast.Keyword(t.pos(), t.text(), expression()));
            } else {
                if (t.is("*") || t.is("**")) {
                    throw error(t.pos(), "argument unpacking ('" + t.text() + "') is not supported");
                }
                if (!kws.isEmpty()) {
                    throw error(t.pos(), "a positional argument cannot follow keyword arguments");
                }
                args.add(expression());
            }
            if (peek().is(",")) {
                next();
            } else if (!peek().is(")")) {
                throw unexpected(peek(), "',' or ')' in the call to " + fn.id() + "()");
            }
        }
        next();
        return new Ast.Call(fn.pos(), fn.id(), args, kws);
    }

    private Expr atom() {
        Token t = next();
        switch (t.kind()) {
            case NUMBER -> {
                boolean integral = !t.text().contains(".") && !t.text().contains("e") && !t.text().contains("E");
                try {
                    return new Ast.Num(t.pos(), Double.parseDouble(t.text()), integral, t.text());
                } catch (NumberFormatException ex) {
                    throw error(t.pos(), "invalid number '" + t.text() + "'");
                }
            }
            case STRING -> {
                return new Ast.Str(t.pos(), t.text());
            }
            case NAME -> {
                return switch (t.text()) {
                    case "True" -> new Ast.Const(t.pos(), Boolean.TRUE);
                    case "False" -> new Ast.Const(t.pos(), Boolean.FALSE);
                    case "None" -> new Ast.Const(t.pos(), null);
                    default -> {
                        if (KEYWORDS_OUTSIDE.contains(t.text()) || t.text().equals("with")) {
                            throw error(t.pos(), "'" + t.text() + "' is not part of the .grad language");
                        }
                        yield new Ast.Name(t.pos(), t.text());
                    }
                };
            }
            case OP -> {
                if (t.text().equals("(")) {
                    return parenthesized(t);
                }
                if (t.text().equals("[")) {
                    // A list where a value goes (a subscript comes after a value, in primary()).
                    throw error(t.pos(), "lists are not supported; give each size as its own argument, e.g. reshape(x, 2, 3)");
                }
                throw unexpected(t, "an expression");
            }
            default -> throw unexpected(t, "an expression");
        }
    }

    private Expr parenthesized(Token open) {
        if (++depth > MAX_DEPTH) {
            throw error(open.pos(), "too many nested parentheses (more than " + MAX_DEPTH + ")");
        }
        try {
            if (peek().is(")")) {
                next();
                return new Ast.Tuple(open.pos(), List.of());
            }
            Expr first = expression();
            if (peek().is(")")) {
                next();
                return first;
            }
            List<Expr> items = new ArrayList<>();
            items.add(first);
            while (peek().is(",")) {
                next();
                if (peek().is(")")) {
                    break;
                }
                items.add(expression());
            }
            expectOp(")", "')'");
            return new Ast.Tuple(open.pos(), items);
        } finally {
            depth--;
        }
    }
}
