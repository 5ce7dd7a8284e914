package io.gradscope.engine.lang;

import java.util.List;

/** The syntax tree of a program. */
public final class Ast {
    private Ast() {
    }

    /** An expression. */
    public sealed interface Expr {
        Pos pos();
    }

    /** A number; {@code text} is as written (echoed in messages: a double cannot hold every integer). */
    public record Num(Pos pos, double value, boolean integral, String text) implements Expr {
        public Num(Pos pos, double value, boolean integral) {
            this(pos, value, integral, null);
        }
    }

    public record Str(Pos pos, String value) implements Expr {
    }

    /** True, False or None ({@code value} null). */
    public record Const(Pos pos, Boolean value) implements Expr {
    }

    public record Name(Pos pos, String id) implements Expr {
    }

    public record Tuple(Pos pos, List<Expr> items) implements Expr {
    }

    /** {@code -x} or {@code +x}. */
    public record Unary(Pos pos, String op, Expr operand) implements Expr {
    }

    /** {@code a OP b}; {@code pos} is the operator's. */
    public record Binary(Pos pos, String op, Expr left, Expr right) implements Expr {
    }

    /** {@code f(args, key=value)}; {@code pos} is the function name's. */
    public record Call(Pos pos, String function, List<Expr> args, List<Keyword> keywords) implements Expr {
    }

    public record Keyword(Pos pos, String name, Expr value) {
    }

    /** A statement. */
    public sealed interface Stmt {
        Pos pos();
    }

    public record Assign(Pos pos, String name, Expr value) implements Stmt {
    }

    /**
     * {@code a, b, c = chunk(x, 3)}: several names bound from one split(...) or chunk(...) call,
     * each to one slice of the value; {@code pos} is the first name's.
     */
    public record Unpack(Pos pos, List<Name> names, Call value) implements Stmt {
    }

    /** A bare expression: allowed as the last statement (the objective). */
    public record ExprStmt(Pos pos, Expr value) implements Stmt {
    }

    /** {@code with group("name"):} or {@code with checkpoint():}. */
    public record With(Pos pos, Call context, List<Stmt> body) implements Stmt {
    }
}
